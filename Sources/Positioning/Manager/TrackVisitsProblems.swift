import GeoBase

extension TrackVisits {
    /// What the read could not use, as `geo visits` tells it once the visits are printed, each
    /// message starting with `file` and a colon. `failure`: the first point earlier than the one
    /// before it (the read stopped there; the visits before it stand), else no point with a time
    /// at all. `note`: how many points had no time and were skipped. Both nil for a track read to
    /// its end with a time on every point.
    public func problems(file: String) -> (failure: String?, note: String?) {
        if let b = backwards {
            return ("\(file): track point \(b.point) (\(ISO8601Time.string(from: b.time))) is earlier than the one before it "
                    + "(\(ISO8601Time.string(from: b.last))): the track is out of time order, sort it by time; the visits before it are printed", nil)
        }
        guard untimed > 0 else { return (nil, nil) }
        guard untimed < points else { return ("\(file): none of its \(points) track points has a time; visits need times", nil) }
        return (nil, "\(file): \(untimed) of \(points) track points have no time and were skipped")
    }
}
