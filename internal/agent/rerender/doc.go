// Package rerender is the re-render protocol between the agent and a parent Application:
// the parent names the state generation it renders in its plugin env's PHASE_GEN (which
// changes the repo-server's cache key, so Argo CD renders again at once), and the agent
// knows the render arrived when the plan the parent applied says so. Decide is the
// protocol, pure over what ViewOf reads off the parent and what the agent remembers of its
// ask (Asked); PhaseGen, SetPhaseGen, WritePhaseGen and PhaseGenPatch read and write
// PHASE_GEN. What the agent remembers, and when it writes, stay the agent's.
package rerender
