// Package logging sets up log/slog for cmp-phase's programs: tint on a terminal, JSON
// otherwise, always on stderr (the plugin's stdout carries manifests only).
package logging
