// Package appcache says what the agent's informers keep of each object they cache:
// credentials never (a cluster Secret keeps its name, server and project), bulk never
// (managed fields, an Application's resource tree and history), and of an Application the
// agent does not steer — neither a child (rollout label) nor a parent a plan names — only
// its name (Parents.Transform). A parent cached by name is read from the API server once
// per version the cache holds (Live).
package appcache
