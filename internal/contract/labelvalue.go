package contract

import "strings"

// IsLabelValue reports whether v is a Kubernetes label value (validation.IsValidLabelValue
// without its regular expression: it runs once per cluster and child). cmp-phase labels
// each child with its cluster's name (LabelCluster), so a cluster name must be one.
func IsLabelValue(v string) bool {
	if len(v) > 63 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnum(c) && ((i == 0 || i == len(v)-1) || c != '-' && c != '_' && c != '.') {
			return false
		}
	}
	return true
}

// LabelValueHint suggests a label value for a name that is not one, for an error's fix:
// its last ':' or '/' segment (an EKS ARN ends in the cluster's own name), other characters
// turned into '-', at most 63, letters or digits at both ends.
func LabelValueHint(name string) string {
	if i := strings.LastIndexAny(name, ":/"); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	b := []byte(name)
	for i, c := range b {
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			b[i] = '-'
		}
	}
	hint := strings.Trim(string(b[:min(len(b), 63)]), "-_.")
	if hint == "" {
		return "my-cluster"
	}
	return hint
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
