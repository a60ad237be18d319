// libFuzzer harness for GPXCodec over XMLStreaming: any bytes either read (with warnings) or fail
// with a typed GPXError; a recovering read never fails where the strict one succeeds and then
// gives the same document; what reads writes as GPX 1.1 that reads back with as many points.
// Built and run by scripts/fuzz.sh.
import GPXCodec
import GeoBase
import FuzzSupport

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let strict = try? GPXReader.read(MemorySource(bytes), options: GPXReadOptions())
    let recovered = try? GPXReader.read(MemorySource(bytes), options: GPXReadOptions(recovering: true))
    if let strict {
        precondition(recovered?.document == strict.document && recovered?.damage == nil,
                     "a recovering read changed a document the strict read accepted")
        precondition(strict.warningCount >= strict.warnings.count, "warnings kept beyond their count")
        // Round trip: written and read back, as many track points.
        let points = { (d: GPXDocument) in d.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } } }
        guard let written = try? GPXWriter.write(strict.document, to: MemorySink()) else {
            preconditionFailure("a document that was read could not be written")
        }
        let again = try? GPXReader.read(MemorySource(written.bytes), options: GPXReadOptions())
        precondition(again.map { points($0.document) } == points(strict.document), "the round trip changed the track points")
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
