import Foundation
import Testing
import GeoCore

/// A fix with every field set: a receiver's report at 48.137154° N, 11.57549° E.
private let full = Location(
    coordinate: Coordinate(uncheckedLatitude: 48.137_154, longitude: 11.575_49),
    timestamp: Date(timeIntervalSince1970: 1_790_000_000.25),
    altitude: .meters(519.4), ellipsoidalAltitude: .meters(567.1),
    horizontalAccuracy: .meters(3.5), verticalAccuracy: .meters(6.5),
    speed: .metersPerSecond(13.9), speedAccuracy: .metersPerSecond(0.3),
    course: .degrees(90), courseAccuracy: .degrees(2.5), climb: .metersPerSecond(-0.5),
    fixMode: .threeDimensional, fixQuality: .differential, satelliteCount: 9)

/// The same place and time with nothing else reported.
private let bare = Location(coordinate: full.coordinate, timestamp: full.timestamp)

/// `full` as the compiler-synthesised `Codable` of the unpacked `Location` (fourteen stored
/// optionals) encoded it with sorted keys: the packed storage must keep these keys and values,
/// and leave out exactly the absent ones (`encodeIfPresent`). Dates encode as seconds since
/// 2001-01-01 (Foundation's default `deferredToDate`): 1 790 000 000.25 − 978 307 200.
private let fullJSON = #"{"altitude":519.4,"climb":-0.5,"coordinate":{"latitude":48.137154,"longitude":11.57549},"course":90,"#
    + #""courseAccuracy":2.5,"ellipsoidalAltitude":567.1,"fixMode":3,"fixQuality":2,"horizontalAccuracy":3.5,"satelliteCount":9,"#
    + #""speed":13.9,"speedAccuracy":0.3,"timestamp":811692800.25,"verticalAccuracy":6.5}"#
private let bareJSON = #"{"coordinate":{"latitude":48.137154,"longitude":11.57549},"timestamp":811692800.25}"#

private func sortedJSON(_ location: Location) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(location), as: UTF8.self)
}

@Test func location_encodesTheKeysAndValuesOfTheUnpackedLayout() throws {
    #expect(try sortedJSON(full) == fullJSON)
    #expect(try sortedJSON(bare) == bareJSON)
}

@Test func location_decodesWhatTheUnpackedLayoutEncoded() throws {
    #expect(try JSONDecoder().decode(Location.self, from: Data(fullJSON.utf8)) == full)
    #expect(try JSONDecoder().decode(Location.self, from: Data(bareJSON.utf8)) == bare)
    // A JSON null is "not reported", as `decodeIfPresent` reads it.
    let nulls = #"{"coordinate":{"latitude":48.137154,"longitude":11.57549},"timestamp":811692800.25,"altitude":null,"fixMode":null}"#
    #expect(try JSONDecoder().decode(Location.self, from: Data(nulls.utf8)) == bare)
}

@Test func location_decodingRejectsWhatTheUnpackedLayoutRejected() {
    let badMode = #"{"coordinate":{"latitude":1,"longitude":2},"timestamp":0,"fixMode":9}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Location.self, from: Data(badMode.utf8)) }
    let badLatitude = #"{"coordinate":{"latitude":91,"longitude":2},"timestamp":0}"#
    #expect(throws: (any Error).self) { try JSONDecoder().decode(Location.self, from: Data(badLatitude.utf8)) }
    let noTime = #"{"coordinate":{"latitude":1,"longitude":2}}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Location.self, from: Data(noTime.utf8)) }
}

@Test func location_describesItselfByItsPublicProperties() {
    // `print(location)` and `dump` show the public names and optionals, not the packed storage.
    let text = String(describing: bare)
    #expect(text.hasPrefix("Location(coordinate: 48.137154,11.57549, timestamp: "))
    #expect(text.hasSuffix(", altitude: nil, ellipsoidalAltitude: nil, horizontalAccuracy: nil, verticalAccuracy: nil, speed: nil, "
        + "speedAccuracy: nil, course: nil, courseAccuracy: nil, climb: nil, fixMode: nil, fixQuality: nil, satelliteCount: nil)"))
    #expect(String(describing: full).contains("altitude: Optional(519.4 m), ellipsoidalAltitude: Optional(567.1 m)"))
    #expect(String(describing: full).hasSuffix("fixMode: Optional(GeoCore.FixMode.threeDimensional), "
        + "fixQuality: Optional(GeoCore.FixQuality.differential), satelliteCount: Optional(9))"))
}

@Test func location_readsBackEveryFieldAsSet() {
    #expect(full.altitude == .meters(519.4))
    #expect(full.ellipsoidalAltitude == .meters(567.1))
    #expect(full.horizontalAccuracy == .meters(3.5))
    #expect(full.verticalAccuracy == .meters(6.5))
    #expect(full.speed == .metersPerSecond(13.9))
    #expect(full.speedAccuracy == .metersPerSecond(0.3))
    #expect(full.course == .degrees(90))
    #expect(full.courseAccuracy == .degrees(2.5))
    #expect(full.climb == .metersPerSecond(-0.5))
    #expect(full.fixMode == .threeDimensional)
    #expect(full.fixQuality == .differential)
    #expect(full.satelliteCount == 9)
    for absent in [bare.altitude, bare.ellipsoidalAltitude, bare.horizontalAccuracy, bare.verticalAccuracy] { #expect(absent == nil) }
    for absent in [bare.speed, bare.speedAccuracy, bare.climb] { #expect(absent == nil) }
    #expect(bare.course == nil && bare.courseAccuracy == nil && bare.satelliteCount == nil)
    #expect(bare.fixMode == nil && bare.fixQuality == nil)
}

@Test func location_keepsNegativeZeroAndInfiniteMeasurements() {
    // Only NaN is "absent": −1 m accuracy (invalid, Core Location's convention), ±∞ and −0 are values.
    var l = bare
    l.horizontalAccuracy = .meters(-1)
    l.verticalAccuracy = .meters(.infinity)
    l.climb = .metersPerSecond(-.infinity)
    l.speed = .metersPerSecond(-0.0)
    l.fixQuality = .invalid
    l.satelliteCount = 0
    #expect(l.horizontalAccuracy == .meters(-1))
    #expect(l.verticalAccuracy == .meters(.infinity))
    #expect(l.climb == .metersPerSecond(-.infinity))
    #expect(l.speed?.metersPerSecond == 0 && l.speed?.metersPerSecond.sign == .minus)
    #expect(l.fixQuality == .invalid)
    #expect(l.satelliteCount == 0)
}

@Test func location_aNaNMeasurementIsAbsent() {
    let nan = Location(coordinate: full.coordinate, timestamp: full.timestamp,
                       altitude: .meters(.nan), ellipsoidalAltitude: .meters(-.nan), horizontalAccuracy: .meters(.signalingNaN),
                       verticalAccuracy: .meters(.nan), speed: .metersPerSecond(.nan), speedAccuracy: .metersPerSecond(.nan),
                       course: .degrees(.nan), courseAccuracy: .degrees(.nan), climb: .metersPerSecond(.nan))
    #expect(nan == bare)
    #expect(nan.hashValue == bare.hashValue)
    #expect(nan.altitude == nil && nan.ellipsoidalAltitude == nil && nan.horizontalAccuracy == nil)
    #expect(nan.speed == nil && nan.course == nil && nan.courseAccuracy == nil && nan.climb == nil)
    var l = full
    l.altitude = .meters(Double(nan: 7, signaling: false))
    #expect(l.altitude == nil)
    #expect(l == { var f = full; f.altitude = nil; return f }())
}

@Test func location_satelliteCountOutsideTheStoredRangeIsAbsent() {
    // Fewer than 200 GNSS satellites orbit: a count outside 0…65534 reports nothing.
    var l = bare
    for kept in [0, 1, 12, 99, 255, 65_534] {
        l.satelliteCount = kept
        #expect(l.satelliteCount == kept)
    }
    for absent in [-1, 65_535, 1 << 40, Int.min, Int.max] {
        l.satelliteCount = absent
        #expect(l.satelliteCount == nil)
        #expect(Location(coordinate: bare.coordinate, timestamp: bare.timestamp, satelliteCount: absent) == bare)
    }
}

@Test func location_equalityTellsEveryFieldApart() {
    let changes: [(String, (inout Location) -> Void)] = [
        ("coordinate", { $0.coordinate = Coordinate(uncheckedLatitude: 48.137_155, longitude: 11.575_49) }),
        ("timestamp", { $0.timestamp += 0.001 }),
        ("altitude", { $0.altitude = .meters(519.5) }), ("altitude nil", { $0.altitude = nil }),
        ("ellipsoidalAltitude", { $0.ellipsoidalAltitude = .meters(1) }),
        ("horizontalAccuracy", { $0.horizontalAccuracy = .meters(-1) }),
        ("verticalAccuracy", { $0.verticalAccuracy = nil }),
        ("speed", { $0.speed = .metersPerSecond(13.8) }),
        ("speedAccuracy", { $0.speedAccuracy = nil }),
        ("course", { $0.course = .degrees(91) }),
        ("courseAccuracy", { $0.courseAccuracy = .degrees(-1) }),
        ("climb", { $0.climb = .metersPerSecond(0.5) }),
        ("fixMode", { $0.fixMode = .twoDimensional }), ("fixMode nil", { $0.fixMode = nil }),
        ("fixQuality", { $0.fixQuality = .invalid }), ("fixQuality nil", { $0.fixQuality = nil }),
        ("satelliteCount", { $0.satelliteCount = 10 }), ("satelliteCount nil", { $0.satelliteCount = nil }),
    ]
    for (name, change) in changes {
        var changed = full
        change(&changed)
        #expect(changed != full, "changing \(name) must make the fix unequal")
        #expect(Set([full, changed]).count == 2, "changing \(name)")
    }
    var zero = bare, negativeZero = bare
    zero.climb = .metersPerSecond(0)
    negativeZero.climb = .metersPerSecond(-0.0)
    // As `Double` compares them: 0 == −0, so they hash alike.
    #expect(zero == negativeZero && zero.hashValue == negativeZero.hashValue)
    #expect(zero != bare)
}

@Test func location_isPackedIntoAtMost104Bytes() {
    // 16 (coordinate) + 8 (timestamp) + 9 × 8 (NaN-for-absent measurements) + 2 (satellites)
    // + 1 + 1 (the two small optional enums) = 100 bytes; the unpacked layout took 177.
    #expect(MemoryLayout<Location>.size <= 104)
    #expect(MemoryLayout<Location>.stride <= 104)
}
