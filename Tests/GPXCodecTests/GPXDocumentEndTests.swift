import Foundation
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
import GPXCodec

private let track = """
<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
<trk><trkseg>
<trkpt lat="46.1" lon="14.1"><ele>1</ele></trkpt>
<trkpt lat="46.2" lon="14.2"><ele>2</ele></trkpt>
</trkseg></trk>
</gpx>

"""

/// A GPX document damaged in one place, and where (1-based line and column) the reader must say.
@Test(arguments: [
    ("duplicate attribute", track.replacingOccurrences(of: #"<trkpt lat="46.2""#, with: #"<trkpt lat="46.2" lat="46.3""#), 5, 19),
    ("two root elements", track + "<gpx version=\"1.1\"></gpx>\n", 8, 1),
    ("trailing garbage", track + "garbage\n", 8, 1),
    ("NUL byte", track.replacingOccurrences(of: "<ele>2", with: "<ele>2\u{0}"), 5, 36),
    ("control byte after the root", track + "\u{1A}", 8, 1),
])
func damagedDocument_isAnErrorWithLineAndColumn(name: String, text: String, line: Int, column: Int) throws {
    let error = #expect(throws: GPXError.self, "\(name)") { try GPXReader.read(bytes: Array(text.utf8)) }
    #expect(error?.code == .malformedXML && error?.line == line && error?.column == column, "\(name): \(String(describing: error))")
    // Recovering keeps every point complete before the damage and says where it is.
    let result = try GPXReader.read(MemorySource(Array(text.utf8)), options: GPXReadOptions(recovering: true))
    #expect(result.damage?.line == line, "\(name)")
    let points = result.document.tracks.flatMap { $0.segments.flatMap(\.points) }
    #expect(points.count == (line <= 5 ? 1 : 2), "\(name)")
}

@Test func invalidUTF8_isAnErrorAtTheByte() throws {
    var bytes = Array(track.utf8)
    let at = try #require(track.utf8.firstIndex(of: UInt8(ascii: "2")).map { track.utf8.distance(from: track.utf8.startIndex, to: $0) })
    bytes.insert(contentsOf: [0xC3, 0x28], at: at) // 0xC3 needs a continuation byte, '(' is not one
    let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: bytes) }
    #expect(error?.code == .malformedXML && error?.offset == at + 1, "\(String(describing: error))")
}

@Test func utf16_isUnsupportedEncoding() throws {
    let bytes: [UInt8] = [0xFF, 0xFE] + Array(track.utf8).flatMap { [$0, 0] }
    let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: bytes) }
    #expect(error?.code == .unsupportedEncoding && error?.offset == 0, "\(String(describing: error))")
}

@Test(.onOwnThread) func realFile_cutAtSeededOffsets_isAnErrorUnlessAfterTheRoot() throws {
    guard let url = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    let rootEnd = try #require(endOfFirst("</gpx>", in: bytes))
    let full = try GPXReader.read(bytes: bytes).tracks.flatMap { $0.segments.flatMap(\.points) }
    var rng = SplitMix64(seed: 13)
    for cut in (0..<100).map({ _ in Int.random(in: 1..<bytes.count, using: &rng) }) {
        let prefix = Array(bytes[..<cut])
        if cut >= rootEnd {
            #expect(throws: Never.self, "cut at \(cut) is after </gpx>") { try GPXReader.read(bytes: prefix) }
            continue
        }
        let error = #expect(throws: GPXError.self, "cut at \(cut) of \(bytes.count)") { try GPXReader.read(bytes: prefix) }
        #expect(error?.code == .truncated && (error?.offset ?? .max) <= cut, "cut at \(cut): \(String(describing: error))")
        if let recovered = try? GPXReader.read(MemorySource(prefix), options: GPXReadOptions(recovering: true)) {
            let points = recovered.document.tracks.flatMap { $0.segments.flatMap(\.points) }
            #expect(points == Array(full.prefix(points.count)) && recovered.damage != nil, "cut at \(cut)")
        }
    }
}

/// The byte offset just past the first occurrence of `needle` in `bytes`.
func endOfFirst(_ needle: String, in bytes: [UInt8]) -> Int? {
    let n = Array(needle.utf8)
    guard bytes.count >= n.count else { return nil }
    return (0...(bytes.count - n.count)).first { bytes[$0..<($0 + n.count)].elementsEqual(n) }.map { $0 + n.count }
}
