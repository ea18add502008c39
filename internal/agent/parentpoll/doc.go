// Package parentpoll is which parents the agent's poll asks Argo CD to refresh, and when.
// Parents that follow the same repository and revision are one source: each interval one
// of them (in turn) is refreshed (InTurn) — one ls-remote per source, however many parents
// (shards, rollouts of one repository) share it. When their last comparisons resolved
// different commits, the others are refreshed within CatchUpEvery (Behind), each at most
// once an interval and once for each commit another found. A parent pinned to a commit,
// being deleted, or with a refresh pending is not polled (Pollable). Pure: the agent lists
// the parents, keeps what it asked (Ask) and patches.
package parentpoll
