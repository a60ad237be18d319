import MapMatching

/// Runs the online matcher over `fixes`: what it published per fix, and its committed answers
/// (taken after every fix, the rest after `finish()`).
func liveAndCommitted(_ matcher: MapMatcher, _ fixes: [TracePoint]) -> (published: [LiveMatch], committed: [MatchedPoint]) {
    var live = OnlineMatcher(matcher: matcher)
    var published: [LiveMatch] = []
    var committed: [MatchedPoint] = []
    for fix in fixes {
        published.append(live.match(fix))
        committed += live.takeCommitted().points
    }
    live.finish()
    committed += live.takeCommitted().points
    return (published, committed)
}
