import Foundation
import GeoCore
import GPXCodec
import Testing
import GeoTestSupport

private let twoEpochs = """
$GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V*07
$GNGGA,003956.00,4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,*56
$GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1*03
$GNRMC,003957.00,A,4552.65403,S,17030.00673,E,0.061,,120419,,,A,V*0C
$GNGGA,003957.00,4552.65403,S,17030.00673,E,1,12,0.64,14.2,M,1.8,M,,*5D

"""

@Test func nmeaDecode_stdin_writesOneJSONObjectPerEpoch() async throws {
    let result = try await GeoProcess.geo(["nmea", "decode", "-"], stdin: twoEpochs)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(first["time"] as? String == "2019-04-12T00:39:56.000Z")
    #expect(first["mode"] as? Int == 3)
    // 45°52.65403' S, 170°30.00668' E
    #expect(abs((first["lat"] as? Double ?? 0) - -45.877567167) < 1e-9)   // degrees
    #expect(abs((first["lon"] as? Double ?? 0) - 170.500111333) < 1e-9)   // degrees
    #expect(abs((first["altMSL"] as? Double ?? 0) - 14.2) < 1e-9)         // metres
    #expect(abs((first["altHAE"] as? Double ?? 0) - 16.0) < 1e-9)         // metres
    #expect(abs((first["speed"] as? Double ?? 0) - 0.025 * 1852 / 3600) < 0.0005) // m/s, 3 decimals printed
    #expect(abs((first["eph"] as? Double ?? 0) - 0.64 * 19) < 1e-9)       // metres, 95 %
    #expect(abs((first["epv"] as? Double ?? 0) - 0.83 * 23) < 1e-9)       // metres, 95 %
    #expect(first["satellitesUsed"] as? Int == 12)
    #expect(first["track"] is NSNull)
    for key in ["time", "mode", "lat", "lon", "altMSL", "altHAE", "speed", "track", "climb", "eph", "epv", "hdop", "satellitesUsed"] {
        #expect(first[key] != nil, "missing \(key)")
    }
}

@Test func nmeaDecode_jsonLines_keepTheirExactBytes() async throws {
    // Field order, decimals per quantity (gpsd's json_tpv_dump: 9 for degrees, 4 for altitudes,
    // 3 for speeds and errors, 2 for DOPs), nulls and the newline, byte for byte.
    let result = try await GeoProcess.geo(["nmea", "decode", "-"], stdin: twoEpochs)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == """
        {"time":"2019-04-12T00:39:56.000Z","mode":3,"lat":-45.877567167,"lon":170.500111333,"altMSL":14.2000,"altHAE":16.0000,"speed":0.013,"track":null,"climb":null,"eph":12.160,"epv":19.090,"hdop":0.64,"satellitesUsed":12}
        {"time":"2019-04-12T00:39:57.000Z","mode":3,"lat":-45.877567167,"lon":170.500112167,"altMSL":14.2000,"altHAE":16.0000,"speed":0.031,"track":null,"climb":0.000,"eph":12.160,"epv":19.090,"hdop":0.64,"satellitesUsed":12}

        """)
}

@Test func nmeaDecode_gpx_writesEscapedTrack() async throws {
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("a&b<c>.log")
        try Data(twoEpochs.utf8).write(to: file)
        let result = try await GeoProcess.geo(["nmea", "decode", "--format", "gpx", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(result.stdout.contains("<name>a&amp;b&lt;c&gt;.log</name>"))
        #expect(result.stdout.hasSuffix("</gpx>\n"))
        let document = try GPXReader.read(bytes: Array(result.stdout.utf8))
        let points = document.tracks.flatMap(\.segments).flatMap(\.points)
        #expect(points.count == 2)
        let first = try #require(points.first)
        // 4552.65403 S, 17030.00668 E: degrees + minutes / 60.
        #expect(abs(first.coordinate.latitude - -45.877_567_166_7) < 1e-9 && abs(first.coordinate.longitude - 170.500_111_333_3) < 1e-9)
        #expect(first.elevation?.meters == 14.2)
        #expect(first.time == Date(timeIntervalSince1970: 1_555_029_596)) // 2019-04-12T00:39:56Z
    }
}

@Test func nmeaCheck_reportsCountsChecksumFailuresAndMalformedLines() async throws {
    let input = """
    # header
    $GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V*07
    $GNGGA,003956.00,4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,*57
    $GPGGA,030130$GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1*03
    $GPZDA,222449,25,10,2010,+00,00

    """
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("x.log")
        try Data(input.utf8).write(to: file)
        let result = try await GeoProcess.geo(["nmea", "check", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("accepted sentences: 2\n"))
        #expect(out.contains("  GNRMC 1\n"))
        #expect(out.contains("  GNGSA 1\n"))
        #expect(out.contains("  GN 2\n"))
        #expect(out.contains("checksum failures: 1\n  line 3, column 1: $GNGGA,003956.00"))
        #expect(out.contains("malformed lines: 2\n"))
        #expect(out.contains("line 4, column 1: sentence cut off by the next one: $GPGGA,030130"))
        #expect(out.contains("line 5, column 1: missing checksum: $GPZDA"))
    }
}

/// A log cut inside a sentence, or with a damaged one, is never a silent success: `nmea decode`
/// keeps the good fixes and says on one line of standard error how many lines it dropped and why.
@Test func nmeaDecode_droppedLines_areCountedOnStandardError() async throws {
    let good = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\n"
    let clean = try await GeoProcess.geo(["nmea", "decode", "-"], stdin: good)
    #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
    let cut = try await GeoProcess.geo(["nmea", "decode", "-"], stdin: good + good.replacingOccurrences(of: "*47", with: "*48") + "$GPGGA,1235")
    #expect(cut.status == 0, "\(cut.stderr)")
    #expect(cut.stdout.split(separator: "\n").count == 1, "the good fix is kept")
    #expect(cut.stderr == "geo nmea: -: 2 lines dropped (1 bad checksum, 1 no checksum); 'geo nmea check -' lists them\n", "\(cut.stderr)")
}
