// Package jsoncost bounds what decoding a JSON document may allocate, before it is
// decoded. A document's bytes do not bound it: each `{}` (3 bytes) in a list of structs
// decodes to a struct of hundreds of bytes, so 10 MiB of `{},` cost 4.3 GB to decode into
// the state (issue 47). One pass over the bytes counts the objects, arrays and scalars,
// and Cost weighs them by what encoding/json allocates for each at most; every ConfigMap
// the sidecar and the agent decode (state, inventory, plan) is refused over its limit.
package jsoncost
