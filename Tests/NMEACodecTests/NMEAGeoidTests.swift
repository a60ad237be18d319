import Foundation
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec

// A GGA without a geoid separation, as the Humminbird GR16 of humminbird-M37.log sends it, at
// 4426.1130 N 07140.5596 W (44.435216667°, -71.675993333°). PROJ's EGM96 geoid height there is
// -27.784651 m (`cct +proj=vgridshift +grids=egm96_15.gtx +multiplier=1`, PROJ 9.1.1; row of
// GeoCoreTests/Fixtures/geoid-egm96.tsv).
private let riverRMC = sentence("INRMC,194101,A,4426.1130,N,07140.5596,W,5.2,77.3,160906,15.8,W")
private let riverGGA = sentence("INGGA,194101,4426.1130,N,07140.5596,W,2,10,0.9,267.9,M,,,,")
private let riverN = -27.784651 // metres, PROJ

@Test func geoid_ggaWithoutSeparation_fillsAltitudeHAEFromEGM96() throws {
    guard let egm96 = try Fixtures.projEGM96() else { return }
    let fix = try #require(NMEADecoder.decode(Array((riverRMC + riverGGA).utf8), options: .init(geoid: egm96)).first)
    #expect(fix.mode == .threeDimensional)
    #expect(fix.geoidModel == egm96.name)
    let n = try #require(fix.geoidSeparation)
    // PROJ's grid, PROJ's interpolation; cct prints 6 decimals (metres).
    #expect(abs(n - riverN) < 1e-5, "N \(n) m vs PROJ \(riverN) m")
    #expect(abs(try #require(fix.altitudeHAE) - (267.9 + n)) < 1e-9)
    #expect(fix.altitudeMSL == 267.9)
    let location = try #require(fix.location)
    #expect(abs(try #require(location.ellipsoidalAltitude).meters - (267.9 + riverN)) < 0.05) // metres
}

@Test func geoid_ggaWithSeparation_keepsTheReceivers() throws {
    let gga = sentence("INGGA,194101,4426.1130,N,07140.5596,W,2,10,0.9,267.9,M,-30.0,M,,")
    let fix = try #require(NMEADecoder.decode(Array((riverRMC + gga).utf8)).first)
    #expect(fix.geoidSeparation == -30.0)
    #expect(fix.geoidModel == nil)
    #expect(abs(try #require(fix.altitudeHAE) - 237.9) < 1e-9) // metres
}

@Test func geoid_gnsWithoutSeparation_fillsAltitudeHAE() throws {
    guard let egm96 = try Fixtures.projEGM96() else { return }
    let gns = sentence("GNGNS,194101.00,4426.1130,N,07140.5596,W,AA,10,0.9,267.9,,,")
    let fix = try #require(NMEADecoder.decode(Array((riverRMC + gns).utf8), options: .init(geoid: egm96)).first)
    #expect(fix.geoidModel == egm96.name)
    #expect(abs(try #require(fix.altitudeHAE) - (267.9 + riverN)) < 0.05) // metres
}

@Test func geoid_noModel_leavesAltitudeHAEEmpty() throws {
    // The decoder's default: no model (it reads no files).
    let fix = try #require(NMEADecoder.decode(Array((riverRMC + riverGGA).utf8)).first)
    #expect(fix.altitudeMSL == 267.9)
    #expect(fix.geoidSeparation == nil && fix.geoidModel == nil && fix.altitudeHAE == nil)
}

@Test func geoid_optionModel_isTheOneUsed() throws {
    // A global grid (2 × 2 nodes 180° apart, wrapping) that puts the geoid 10 m above WGS84.
    let flat = try Geoid(name: "flat +10 m", south: -90, west: -180, latitudeSpacing: 180, longitudeSpacing: 180,
                         rows: 2, columns: 2, heights: [10, 10, 10, 10])
    let fix = try #require(NMEADecoder.decode(Array((riverRMC + riverGGA).utf8), options: .init(geoid: flat)).first)
    #expect(fix.geoidModel == "flat +10 m")
    #expect(fix.geoidSeparation == 10)
    #expect(abs(try #require(fix.altitudeHAE) - 277.9) < 1e-9)
}

@Test func geoid_noFixEpoch_getsNoSeparation() throws {
    let gga = sentence("INGGA,194101,4426.1130,N,07140.5596,W,0,02,0.9,267.9,M,,,,")
    let fix = try #require(NMEADecoder.decode(Array(gga.utf8)).first)
    #expect(fix.mode == .noFix)
    #expect(fix.geoidSeparation == nil && fix.geoidModel == nil && fix.altitudeHAE == nil)
}

/// The real log: every epoch gpsd reports with an altHAE (7, all from a GGA without a
/// separation) now has one, within 1.3 m of gpsd's: gpsd 3.22 takes the separation from
/// EGM2008 on a 5° grid, -29.00 m here, 1.22 m below EGM96 (see GPSDOracleTests, geoidModel).
@Test func geoid_humminbirdLog_altitudeHAEWithinGPSDsGridError() throws {
    guard let url = try Fixtures.url("nmea/humminbird-M37.log"), let egm96 = try Fixtures.projEGM96() else { return }
    let fixes = NMEADecoder.decode(try [UInt8](Data(contentsOf: url)), options: .init(geoid: egm96))
    let chk = try String(contentsOf: url.appendingPathExtension("chk"), encoding: .utf8)
    var compared = 0
    for line in chk.split(whereSeparator: \.isNewline) where line.contains("\"altHAE\"") {
        let tpv = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let time = try #require(tpv["time"] as? String), gpsd = try #require(tpv["altHAE"] as? Double)
        // The log's time goes back once (194124 to 194111): match the first fix at that time after the last match.
        let ours = try #require(fixes.first { $0.isoTime == time && $0.altitudeMSL == tpv["altMSL"] as? Double },
                                "no fix at \(time)")
        let hae = try #require(ours.altitudeHAE, "no altitudeHAE at \(time)")
        #expect(abs(hae - gpsd) < 1.3, "\(time): \(hae) vs gpsd \(gpsd)") // metres
        // EGM96, not a copy of gpsd's coarse grid: the 1.22 m difference is gpsd's grid error.
        #expect(abs(hae - gpsd) > 1.2, "\(time): \(hae) vs gpsd \(gpsd)")
        compared += 1
    }
    #expect(compared == 7)
}
