import Foundation
import Testing
import GeoTestSupport

// Tenerife (28.25° N, 16.75° W), steep geoid; PROJ's geoid height there is 50.475124 m (`cct +proj=vgridshift +grids=egm96_15.gtx
// +multiplier=1`, PROJ 9.1.1).

/// A receiver that sends no geoid separation.
private let tenerifeLog = """
$GPRMC,120000.00,A,2815.0000,N,01645.0000,W,0.0,,010620,,,A*6C
$GPGGA,120000.00,2815.0000,N,01645.0000,W,1,08,0.9,100.0,M,,M,,*6B

"""

private func separation(_ result: ProcessResult) throws -> Double {
    #expect(result.status == 0, "\(result.stderr)")
    let line = try #require(result.stdout.split(separator: "\n").first)
    let fix = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    return try #require(fix["altHAE"] as? Double) - (try #require(fix["altMSL"] as? Double))
}

@Test func nmeaDecode_noSeparation_altHAEFromPROJsEGM96() async throws {
    let n = try separation(try await GeoProcess.geo(["nmea", "decode", "-"], stdin: tenerifeLog))
    #expect(abs(n - 50.475124) < 0.05, "N \(n) m vs PROJ 50.475 m") // metres; altHAE printed to 0.1 mm
}

@Test func nmeaDecode_withoutPROJData_altHAEStaysNull() async throws {
    try await withTemporaryDirectory { empty in
        let result = try await GeoProcess.geo(["nmea", "decode", "-"], stdin: tenerifeLog, environment: ["PROJ_DATA": empty.path])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first)
        #expect(line.contains(#""altMSL":100.0000"#) && line.contains(#""altHAE":null"#), "\(line)")
    }
}
