public import GeoCore
public import GPXCodec

// `geo gpx clean` and `geo gpx smooth` as `GPXFilteredCopy` segment filters: each point
// leaves once the smoother's window holding it is done, moved to its filtered fix
// (`GPXPoint.update(from:)`: position, time, speed, course, elevation), every other field of
// the recorded point kept.

extension SmoothedCleaning: GPXSegmentFilter where Item == GPXPoint {
    public mutating func push(_ fix: Location, point: GPXPoint, _ emit: (GPXPoint) throws -> Void) throws {
        try push(fix, item: point) { location, point in try emit(point.updated(from: location)) }
    }

    public mutating func finish(_ emit: (GPXPoint) throws -> Void) throws {
        try finish { (location: Location, point: GPXPoint) in try emit(point.updated(from: location)) }
    }
}

extension FixedLagSmoothing: GPXSegmentFilter where Item == GPXPoint {
    public mutating func push(_ fix: Location, point: GPXPoint, _ emit: (GPXPoint) throws -> Void) throws {
        try push(fix, item: point) { location, point in try emit(point.updated(from: location)) }
    }

    public mutating func finish(_ emit: (GPXPoint) throws -> Void) throws {
        try finish { (location: Location, point: GPXPoint) in try emit(point.updated(from: location)) }
    }
}

private extension GPXPoint {
    func updated(from location: Location) -> GPXPoint {
        var point = self
        point.update(from: location)
        return point
    }
}
