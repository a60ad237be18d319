import Foundation
import Testing
import GeoCore
import GeoBase

@Test(arguments: [(0.0, 0.0), (360, 0), (-90, 270), (725, 5), (-0.0, 0), (-1e-17, 0), (359.999_999_999, 359.999_999_999)])
func bearing_wrapsIntoHalfOpenCircle(input: Double, expected: Double) {
    let b = Bearing(degrees: input)
    #expect(b.degrees >= 0 && b.degrees < 360)
    #expect(abs(b.degrees - expected) < 1e-9) // degrees
}

@Test func bearing_turnIsTheShortWay() {
    #expect(Bearing(degrees: 350).turn(to: Bearing(degrees: 10)) == 20)
    #expect(Bearing(degrees: 10).turn(to: Bearing(degrees: 350)) == -20)
    #expect(Bearing(degrees: 0).turn(to: Bearing(degrees: 180)) == 180)
}

@Test func speed_convertsKnotsAndKilometresPerHour() {
    // 1 knot = 1852 m / 3600 s exactly (international nautical mile).
    #expect(abs(Speed.knots(1).metersPerSecond - 0.514_444_444_444) < 1e-12) // m/s
    #expect(abs(Speed.kilometersPerHour(36).metersPerSecond - 10) < 1e-12) // m/s
    #expect(abs(Speed.metersPerSecond(10).knots - 19.438_444_924_406) < 1e-9) // knots
}

@Test func units_encodeAsBareNumbers() throws {
    let json = try JSONEncoder().encode([Distance.kilometers(1.5)])
    #expect(String(decoding: json, as: UTF8.self) == "[1500]")
    let location = Location(coordinate: try Coordinate(latitude: 1, longitude: 2), timestamp: Date(timeIntervalSince1970: 0),
                            horizontalAccuracy: .meters(4), speed: .metersPerSecond(3), course: .degrees(-90))
    let back = try JSONDecoder().decode(Location.self, from: JSONEncoder().encode(location))
    #expect(back == location)
    #expect(back.course?.degrees == 270)
}

@Test func coordinate_parsesCommandLineForm() throws {
    let c = try Coordinate(parsing: "52.52, 13.40")
    #expect(c.latitude == 52.52 && c.longitude == 13.40)
    #expect(throws: GeoCoreError.self) { try Coordinate(parsing: "52.52") }
    #expect(throws: GeoCoreError.self) { try Coordinate(parsing: "91,0") }
    #expect(throws: GeoCoreError.self) { try Coordinate(parsing: "a,b") }
}

@Test(arguments: [0.0, 1.5, -2.25, 1e-9, 86_400.125, 1e12])
func duration_secondsRoundTrip(value: Double) throws {
    let d = try #require(Duration(seconds: value))
    #expect(abs(d.seconds - value) <= max(1e-15, abs(value) * 1e-15)) // seconds
    #expect(abs(Duration.seconds(value).seconds - value) <= max(1e-15, abs(value) * 1e-15)) // seconds
}

@Test func duration_secondsKeepsAttoseconds() {
    #expect(Duration.milliseconds(1500).seconds == 1.5)
    #expect(abs((Duration.seconds(3) + .nanoseconds(7)).seconds - 3.000_000_007) < 1e-15) // seconds
}

/// Whole milliseconds, the fraction truncated toward zero as integer division does, and held
/// at Int64's bounds where seconds × 1000 would not fit.
@Test func duration_milliseconds() {
    #expect(Duration.seconds(5).milliseconds == 5_000)
    #expect((Duration.milliseconds(1_234) + .microseconds(999)).milliseconds == 1_234)
    #expect(Duration.microseconds(-1_500).milliseconds == -1)
    #expect(Duration.zero.milliseconds == 0)
    #expect(Duration.seconds(Int64.max / 100).milliseconds == .max)
    #expect(Duration.seconds(Int64.min / 100).milliseconds == .min)
}

@Test(arguments: [Double.nan, .infinity, -.infinity, 1e19, -1e19])
func duration_fromSeconds_refusesWhatDurationCannotHold(value: Double) {
    #expect(Duration(seconds: value) == nil)
}
