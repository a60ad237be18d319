import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import GPXCodec
import NMEACodec
import SystemIO
import Testing
import TraceFiles

/// The fixes of one epoch (GGA + RMC, a 3D fix at 12:00:00 UTC on 14 July 2026), decoded.
private func fixes() -> [NMEAFix] {
    let log = "$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*67\r\n"
        + "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n"
        + "$GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,0.0,140726,,,A*59\r\n"
    var decoder = NMEADecoder()
    var fixes: [NMEAFix] = []
    Array(log.utf8).withUnsafeBytes { decoder.decode($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    return fixes
}

/// `geo nmea decode`'s JSON line: every field in order, gpsd's decimals per quantity, null
/// where the epoch does not say.
@Test func fixJSONLine_fieldsInOrderWithTheirDecimals() throws {
    let fix = try #require(fixes().first)
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("fix.jsonl").path
        let file = try FileDescriptor.create(path)
        var out = BufferedWriter(file)
        fix.writeJSONLine(to: &out)
        out.flush()
        try file.close()
        let line = String(decoding: try FileDescriptor.readContents(of: path), as: UTF8.self)
        // 4807.038' N = 48.1173°, 01131.000' E = 11.516666667° (9 decimals); altHAE = 545.4 m MSL
        // + 46.9 m geoid; eph, epv as gpsd's 95 % errors from the DOPs (HDOP 1.3 from the GSA).
        #expect(line == #"{"time":"2026-07-14T12:00:00.000Z","mode":3,"lat":48.117300000,"lon":11.516666667,"altMSL":545.4000,"#
            + #""altHAE":592.3000,"speed":0.000,"track":0.0000,"climb":null,"eph":24.700,"epv":48.300,"hdop":1.30,"satellitesUsed":8}"# + "\n")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(o["speed"] as? Double == 0 && o["climb"] is NSNull, "no climb from a single epoch")
    }
}

/// The same fix as a GPX track point: MSL elevation, a 3D fix, the DOPs from GSA.
@Test func fixAsGPXPoint_keepsElevationFixAndDOPs() throws {
    let fix = try #require(fixes().first)
    let point = try #require(GPXPoint(fix))
    #expect(abs(point.coordinate.latitude - 48.1173) < 1e-9 && point.elevation?.meters == 545.4)
    #expect(point.fix == .threeDimensional && point.satellites == 8 && point.hdop == 1.3 && point.vdop == 2.1 && point.pdop == 2.5)
    #expect(point.geoidHeight?.meters == 46.9)
}

/// `count` one-second epochs (RMC + GGA, no checksums) at 45° 52.65403' S, 170° 30.00668' E
/// from 00:00:00 UTC on 12 April 2019, then one epoch without a fix (GGA quality 0, RMC void).
private func epochLog(_ count: Int) -> [UInt8] {
    var log = ""
    for i in 0..<count {
        let t = String(format: "%02d%02d%02d.00", i / 3600, i / 60 % 60, i % 60)
        log += "$GNRMC,\(t),A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V\r\n"
        log += "$GNGGA,\(t),4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,\r\n"
    }
    let t = String(format: "%02d%02d%02d.00", count / 3600, count / 60 % 60, count % 60)
    // GGA first: an invalid RMC's time is not trusted, so alone it would join the epoch before.
    log += "$GNGGA,\(t),,,,,0,00,99.99,,,,,,\r\n$GNRMC,\(t),V,,,,,,,120419,,,N,V\r\n"
    return Array(log.utf8)
}

private let noChecksums = NMEADecoder.Options(scanner: .init(acceptMissingChecksum: true))

/// A sink whose every write fails.
private struct FailingSink: ByteSink {
    struct Full: Error {}
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { throw Full() }
}

/// `geo nmea decode --format gpx`'s engine: one track named as asked (escaped), one point per
/// fixed epoch at degrees + minutes / 60, the epoch without a fix left out.
@Test func writeGPXTrack_onePointPerFixedEpoch_inOneNamedTrack() throws {
    var decoder = NMEADecoder(options: noChecksums)
    var source = MemorySource(epochLog(3))
    let sink = try decoder.writeGPXTrack(from: &source, to: MemorySink(), trackName: "a&b", creator: "test creator")
    let text = String(decoding: sink.bytes, as: UTF8.self)
    #expect(text.contains("creator=\"test creator\"") && text.contains("<name>a&amp;b</name>") && text.hasSuffix("</gpx>\n"))
    let document = try GPXReader.read(bytes: sink.bytes)
    #expect(document.tracks.count == 1 && document.tracks.first?.segments.count == 1)
    let points = document.tracks.flatMap(\.segments).flatMap(\.points)
    #expect(points.count == 3, "the epoch without a fix has no point")
    for (i, point) in points.enumerated() {
        #expect(abs(point.coordinate.latitude - -(45 + 52.65403 / 60)) < 1e-9)
        #expect(abs(point.coordinate.longitude - (170 + 30.00668 / 60)) < 1e-9)
        #expect(point.time == Date(timeIntervalSince1970: 1_555_027_200 + Double(i))) // 2019-04-12T00:00:00Z + i s
        #expect(point.elevation?.meters == 14.2)
    }
}

/// A write that fails mid-stream (the writer hands over every 64 KiB; 2,000 points are more)
/// is thrown, after the rest of the log was still decoded: the scanner counted every line.
@Test func writeGPXTrack_failedWrite_isThrown_afterTheWholeLogWasScanned() throws {
    let log = epochLog(2_000)
    var whole = NMEADecoder(options: noChecksums)
    var source = MemorySource(log)
    let written = try whole.writeGPXTrack(from: &source, to: MemorySink(), trackName: "t", creator: "c")
    #expect(written.bytes.count > 1 << 16)
    #expect(whole.scanner.statistics.accepted == 4_002)

    var failing = NMEADecoder(options: noChecksums)
    source = MemorySource(log)
    #expect(throws: FailingSink.Full.self) {
        _ = try failing.writeGPXTrack(from: &source, to: FailingSink(), trackName: "t", creator: "c")
    }
    #expect(failing.scanner.statistics == whole.scanner.statistics)
}
