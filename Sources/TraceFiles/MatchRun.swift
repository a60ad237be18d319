public import GeoBase
public import MapMatching

extension MatchOutput {
    /// `geo match`'s output for `entries` (a `TraceFile`'s, in file order) on `matcher`: the
    /// fixes matched as one track (OSRM's `/match`, in process) and written to `sink` as
    /// `format`, a nil entry a null tracepoint; or, `online`, what the live matcher publishes at
    /// each entry, one JSON line each (``writeOnline(_:matcher:to:)``). A whole-track match
    /// laps `timings` once it is matched ("matching").
    /// - Throws: what writing to `sink` throws.
    public static func write(_ entries: [TracePoint?], matcher: MapMatcher, online: Bool, format: PathFormat,
                             timings: inout MatchTimings, to sink: inout any ByteSink) throws {
        if online { return try writeOnline(entries, matcher: matcher, to: &sink) }
        let result = matcher.match(entries.compactMap(\.self))
        timings.lap("matching")
        try format.bytes(of: result, entries: entries).withUnsafeBytes { try sink.write($0) }
    }
}
