import Foundation
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
