package render

// Specs and plans in these tests carry hooks of every kind, as the binaries register them.
import _ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
