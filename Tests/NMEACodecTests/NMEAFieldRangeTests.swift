import Testing
import NMEACodec

// gpsd (drivers/driver_nmea0183.c: do_lat_lon checks only isfinite, merge_ddmmyy only
// 1 ≤ day ≤ 31) passes latitude 91, longitude 181 and 31 February on; none of the .chk files
// holds such a sentence. LocationKit rejects the field on purpose: the position (both
// coordinates) or the date is nil, as for any malformed field, and the rest of the sentence
// is kept. Every .chk position is inside the ranges, so the oracle tests are unchanged.

@Test(arguments: [
    ("$GPGGA,123519,9100.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4F", "latitude 91° N"),
    ("$GPGGA,123519,4807.038,N,18100.000,E,1,08,0.9,545.4,M,46.9,M,,*4D", "longitude 181° E"),
])
func gga_outOfRangeCoordinate_dropsThePosition(sentence: String, what: String) throws {
    guard case .gga(let g) = try NMEASentence(parsing: sentence) else { Issue.record("not GGA"); return }
    #expect(g.fix.latitude == nil && g.fix.longitude == nil, "\(what) must not be a position")
    #expect(g.fix.altitudeMSL == 545.4, "the other fields of the sentence are kept")
}

@Test func gga_theBoundsThemselves_areValid() throws {
    let s = try NMEASentence(parsing: "$GPGGA,123519,9000.000,S,18000.000,W,1,08,0.9,545.4,M,46.9,M,,*4A")
    guard case .gga(let g) = s else { Issue.record("not GGA"); return }
    #expect(g.fix.latitude == -90)
    #expect(g.fix.longitude == -180)
}

@Test func rmc_dayTheMonthLacks_dropsTheDate() throws {
    guard case .rmc(let feb31) = try NMEASentence(parsing: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,310224,003.1,W*63"),
          case .rmc(let leap) = try NMEASentence(parsing: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,290224,003.1,W*6A"),
          case .rmc(let notLeap) = try NMEASentence(parsing: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,290223,003.1,W*6D")
    else { Issue.record("not RMC"); return }
    #expect(feb31.date == nil, "31 February 2024")
    #expect(feb31.latitude != nil, "the position of the sentence is kept")
    #expect(leap.date == NMEADate(year: 2024, month: 2, day: 29))
    #expect(notLeap.date == nil, "29 February 2023")
}

@Test func zda_dayTheMonthLacks_dropsTheDate() throws {
    guard case .zda(let feb31) = try NMEASentence(parsing: "$GPZDA,201530.00,31,02,2024,00,00*67"),
          case .zda(let feb29) = try NMEASentence(parsing: "$GPZDA,201530.00,29,02,2024,00,00*6E")
    else { Issue.record("not ZDA"); return }
    #expect(feb31.date == nil)
    #expect(feb29.date == NMEADate(year: 2024, month: 2, day: 29))
}

@Test func decoder_rmcWithOutOfRangeCoordinates_yieldsNoPosition() throws {
    let fixes = NMEADecoder.decode(Array("$GPRMC,123519,A,9100.000,N,18100.000,E,022.4,084.4,230394,003.1,W*68\r\n".utf8))
    #expect(!fixes.isEmpty, "the epoch is still reported (time, speed)")
    #expect(fixes.allSatisfy { $0.latitude == nil && $0.longitude == nil }, "\(fixes)")
}
