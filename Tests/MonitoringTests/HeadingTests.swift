import Foundation
import Testing
import GeoCore
import NMEACodec
import Compass

private let july2026 = Date(timeIntervalSince1970: 1_782_864_000) // 2026-07-01T00:00Z

@Test func heading_trueFromNMEA_getsMagneticFromTheWMMDeclination() throws {
    // Cape Town: declination about −26.7° (west) in 2026 (geo magnetic -33.92,18.42).
    let nmea = try #require(try NMEAHeading(NMEASentence(parsing: "$GPHDT,274.07,T*03")))
    let heading = try Heading(nmea, timestamp: july2026).resolved(at: Coordinate(latitude: -33.92, longitude: 18.42))
    let d = try MagneticModel.wmm2025.field(at: Coordinate(latitude: -33.92, longitude: 18.42), date: july2026).declination.degrees
    #expect(d < -26 && d > -28)
    #expect(heading.trueHeading?.degrees == 274.07)
    #expect(abs((heading.magneticHeading?.degrees ?? .nan) - (274.07 - d)) < 1e-9) // degrees: 300.8°
    #expect(heading.declination?.degrees == d && heading.isReliable && !heading.needsCalibration)
}

@Test func heading_magneticFromGPSD_getsTrue_andWrapsThroughNorth() throws {
    let att = try GPSDMessage(json: #"{"class":"ATT","device":"/dev/ttyUSB0","mheading":355.0,"mag_st":"N"}"#)
    guard case .att(let report) = att else { Issue.record("not ATT"); return }
    // Cape Town, declination ≈ −26.7°: magnetic 355° is true ≈ 328.3°.
    let heading = try #require(try Heading(report, timestamp: july2026)).resolved(at: Coordinate(latitude: -33.92, longitude: 18.42))
    let t = try #require(heading.trueHeading?.degrees)
    #expect(t > 327 && t < 330, "\(t)")
    #expect(heading.sensorStatus == .normal && heading.isReliable)
    // Bergen, declination ≈ +2°: true 1° is magnetic ≈ 359°, in [0, 360).
    let north = try Heading(timestamp: july2026, trueHeading: .degrees(1)).resolved(at: Coordinate(latitude: 60.39, longitude: 5.32))
    let m = try #require(north.magneticHeading?.degrees)
    #expect(m > 357 && m < 360, "\(m)")
}

@Test func heading_gpsdCalibrationAlarm_needsCalibration_alarmsAreUnreliable() throws {
    for (code, calibrate, reliable) in [("C", true, false), ("N", false, true), ("M", false, true), ("P", false, false), ("V", false, false)] {
        guard case .att(let report) = try GPSDMessage(json: #"{"class":"ATT","heading":12.5,"mag_st":"\#(code)"}"#) else { continue }
        let heading = try #require(try Heading(report, timestamp: july2026))
        #expect(heading.needsCalibration == calibrate && heading.isReliable == reliable, "mag_st \(code)")
    }
    guard case .att(let none) = try GPSDMessage(json: #"{"class":"ATT","pitch":2.0}"#) else { return }
    #expect(try Heading(none, timestamp: july2026) == nil)
}

@Test func heading_magneticNearTheMagneticPole_isUnreliable() throws {
    // Near the north magnetic pole (≈ 85.8°N, 139°E in 2026) H is below 2000 nT.
    let heading = try Heading(timestamp: july2026, magneticHeading: .degrees(90)).resolved(at: Coordinate(latitude: 85.8, longitude: 139))
    #expect(!heading.isReliable)
    let thsInvalid = try #require(try NMEAHeading(NMEASentence(parsing: "$GNTHS,77.52,V*39")))
    #expect(!Heading(thsInvalid, timestamp: july2026).isReliable)
}

@Test func heading_outsideTheModelsYears_throws() {
    let heading = Heading(timestamp: Date(timeIntervalSince1970: 0), trueHeading: .degrees(10))
    #expect(throws: CompassError.self) { try heading.resolved(at: Coordinate(uncheckedLatitude: 0, longitude: 0)) }
}
