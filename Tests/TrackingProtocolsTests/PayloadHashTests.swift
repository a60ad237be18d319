import Foundation
import GeoCore
import Testing
import TrackingProtocols

/// `TrackedFix.payloadHash` is part of every stored fix's key: a change of it would let a retry
/// of a fix stored before the change be stored twice. These values were computed outside Swift
/// (Python, FNV-1a 64 over the little-endian bit patterns as documented, checked against the FNV
/// reference vectors).
@Suite struct PayloadHashTests {
    @Test func valuesArePinned() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000.123)
        let coordinate = try Coordinate(latitude: 52.5, longitude: 13.4)
        let bare = TrackedFix(device: "a", location: Location(coordinate: coordinate, timestamp: at), source: .osmAnd)
        #expect(bare.payloadHash == 4_335_260_854_432_306_558)
        let full = TrackedFix(device: "b", location: Location(
            coordinate: coordinate, timestamp: at, altitude: Distance(meters: 34.5), horizontalAccuracy: Distance(meters: 5),
            verticalAccuracy: Distance(meters: 3), speed: Speed(metersPerSecond: 1.25), course: Bearing(degrees: 270), satelliteCount: 9),
            source: .overland)
        #expect(full.payloadHash == -7_329_330_667_389_408_302)
        // The device and the source are not part of the payload.
        #expect(TrackedFix(device: "c", location: bare.location, source: .gpsLogger).payloadHash == bare.payloadHash)
    }
}
