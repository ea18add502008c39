package main

// The windows' time zones (spec, fleet and AppProject windows) must load on a machine or
// image without tzdata.
import _ "time/tzdata"
