import Foundation
import GeoBase
import GeoCore
import Testing
import TraceFiles

// MatchOutput.write, `geo match`'s output: the whole track matched once and written in the
// asked format, or the live matcher's lines; the stopwatch lapped only for a whole-track match.

@Test func matchOutputWrite_wholeTrack_oneTracepointPerEntry_nullForTheUnreadOne_andOneLap() throws {
    let trace = try StraightStreetTrace()
    var timings = MatchTimings()
    var sink: any ByteSink = MemorySink()
    try MatchOutput.write(trace.entries, matcher: trace.matcher, online: false, format: .json, timings: &timings, to: &sink)
    let bytes = try #require(sink as? MemorySink).bytes
    let o = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    let tracepoints = try #require(o["tracepoints"] as? [Any])
    #expect(tracepoints.count == trace.entries.count)
    #expect(tracepoints[3] is NSNull)
    // Eight fixes along one street, 10 s apart: one matching, every read fix on it.
    #expect((o["matchings"] as? [Any])?.count == 1)
    #expect(tracepoints.enumerated().allSatisfy { k, p in k == 3 || p is [String: Any] })
    #expect(timings.phases.map(\.name) == ["matching"])
}

@Test func matchOutputWrite_online_oneLinePerEntry_andNoLap() throws {
    let trace = try StraightStreetTrace()
    var timings = MatchTimings()
    var sink: any ByteSink = MemorySink()
    try MatchOutput.write(trace.entries, matcher: trace.matcher, online: true, format: .geojson, timings: &timings, to: &sink)
    let text = String(decoding: try #require(sink as? MemorySink).bytes, as: UTF8.self)
    #expect(text.split(separator: "\n").count == trace.entries.count && text.hasSuffix("\n"))
    #expect(!text.contains("\"features\"")) // --online prints the live lines whatever the format
    #expect(timings.phases.isEmpty)
}
