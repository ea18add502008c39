// Package syncwindows turns the sync windows of a child's AppProject into the change
// windows the engine judges (spec.Window, named appproject/<project>/<index>): those that
// match the child as Argo CD matches them, compiled once per project; a window Argo CD
// could not evaluate denies, as Argo CD refuses syncs under it. Pure: projects are read
// through the function the caller passes.
package syncwindows
