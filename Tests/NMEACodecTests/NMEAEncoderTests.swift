import Foundation
import Testing
import GeoCore
import NMEACodec

/// 1994-03-23T12:35:19Z at 48°07.038' N 11°31.000' E, the NMEA documentation's example fix.
private func example() throws -> Location {
    Location(
        coordinate: try Coordinate(latitude: 48 + 7.038 / 60, longitude: 11 + 31.0 / 60),
        timestamp: Date(timeIntervalSince1970: Double(NMEADate(year: 1994, month: 3, day: 23).daysSinceEpoch) * 86_400 + 12 * 3600 + 35 * 60 + 19),
        altitude: .meters(545.4),
        ellipsoidalAltitude: .meters(592.3),
        horizontalAccuracy: .meters(0.9 * 19 / NMEAErrorModel.horizontal95To68),
        verticalAccuracy: .meters(1.2 * 23 / NMEAErrorModel.vertical95To68),
        speed: .knots(22.4),
        course: .degrees(84.4),
        fixMode: .threeDimensional,
        fixQuality: .gps,
        satelliteCount: 8
    )
}

@Test func encode_example_goldenSentences() throws {
    let s = try NMEAEncoder.sentences(for: example())
    // Checksums verified independently (XOR of the body, Python `functools.reduce`).
    #expect(s == [
        "$GPGGA,123519.00,4807.038000,N,01131.000000,E,1,08,0.90,545.40,M,46.90,M,,*59\r\n",
        "$GPGSA,A,3,,,,,,,,,,,,,1.50,0.90,1.20*0C\r\n",
        "$GPRMC,123519.00,A,4807.038000,N,01131.000000,E,22.400,84.40,230394,,,A*62\r\n",
        "$GPVTG,84.40,T,,M,22.400,N,41.485,K,A*0D\r\n",
    ])
}

@Test func encode_thenDecode_roundTripsEveryField() throws {
    var l = try example()
    l.coordinate = try Coordinate(latitude: -33.8568123, longitude: -151.2153456)
    l.timestamp = Date(timeIntervalSince1970: 1_700_000_000.25)
    l.fixQuality = .differential
    let text = try NMEAEncoder.sentences(for: l).joined()
    let fixes = NMEADecoder.decode(Array(text.utf8))
    #expect(fixes.count == 1)
    let d = try #require(fixes.first?.location)
    #expect(abs(d.coordinate.latitude - l.coordinate.latitude) < 1e-7)    // degrees
    #expect(abs(d.coordinate.longitude - l.coordinate.longitude) < 1e-7)  // degrees
    #expect(abs(d.timestamp.timeIntervalSince(l.timestamp)) < 0.005)     // seconds
    #expect(abs((d.altitude?.meters ?? 0) - 545.4) < 0.01)                // metres
    #expect(abs((d.ellipsoidalAltitude?.meters ?? 0) - 592.3) < 0.01)     // metres
    #expect(abs((d.speed?.metersPerSecond ?? 0) - (l.speed?.metersPerSecond ?? 0)) < 0.001) // m/s
    #expect(abs((d.course?.degrees ?? 0) - 84.4) < 0.01)                  // degrees
    #expect(d.fixMode == .threeDimensional)
    #expect(d.fixQuality == .differential)
    #expect(d.satelliteCount == 8)
    // The decoder applies gpsd's DGPS UERE to the encoder's non-DGPS HDOP, so compare the
    // DOP-based 95 % figure instead: eph = hdop × 4.75 m with hdop 0.90.
    #expect(abs((fixes.first?.eph ?? 0) - 0.9 * 4.75) < 1e-9)            // metres
}

@Test func encode_nonFiniteLocation_throws() throws {
    var l = try example()
    // Infinite, not NaN: a NaN measurement is an absent one (`Location`), encoded as an empty field.
    l.speed = .metersPerSecond(.infinity)
    #expect(throws: NMEAError.self) { try NMEAEncoder.rmc(l) }
}

@Test func encode_noFix_marksInvalid() throws {
    var l = try example()
    l.fixMode = .noFix
    l.fixQuality = nil
    #expect(try NMEAEncoder.rmc(l).contains(",V,"))
    #expect(try NMEAEncoder.gga(l).contains(",E,0,08,"))
}

@Test func encode_absurdSpeedAndAltitude_leaveTheFieldsEmpty() throws {
    // A Location from a library user can carry any Double; 1e20 knots has no NMEA text, so
    // the field is left empty (no value) instead of trapping in the integer conversion.
    var l = try example()
    l.speed = .metersPerSecond(1e20)
    l.altitude = .meters(1e20)
    let s = try NMEAEncoder.sentences(for: l)
    #expect(s[2].hasPrefix("$GPRMC,123519.00,A,4807.038000,N,01131.000000,E,,84.40,230394,"), "\(s[2])")
    #expect(s[0].contains(",08,0.90,,M,,M,"), "altitude and geoid separation: \(s[0])")
}
