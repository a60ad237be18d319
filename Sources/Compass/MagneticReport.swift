public import GeoBase
public import GeoCore

/// The field of a model at a point and time as `geo magnetic` prints it: plain lines or one
/// JSON object, angles in degrees with 4 decimals, intensities in nT with 1, the decimal year
/// with 6 (the model: ``MagneticModel``).
public struct MagneticReport: Hashable, Sendable {
    /// The model's name, e.g. `WMM-2025`.
    public let modelName: String
    /// Where: latitude and longitude in degrees.
    public let coordinate: Coordinate
    /// Height above the WGS84 ellipsoid, metres.
    public let altitude: Double
    /// When, as a decimal year.
    public let decimalYear: Double
    /// The field there.
    public let field: MagneticField

    /// The field of `model` at `coordinate`, `altitude` metres above the WGS84 ellipsoid, at
    /// `decimalYear`.
    /// - Throws: `CompassError` (`.dateOutsideModel`, …) from ``MagneticModel/field(at:altitude:decimalYear:)``.
    public init(_ model: MagneticModel, at coordinate: Coordinate, altitude: Double, decimalYear: Double) throws(CompassError) {
        field = try model.field(at: coordinate, altitude: .meters(altitude), decimalYear: decimalYear)
        modelName = model.name
        self.coordinate = coordinate
        self.altitude = altitude
        self.decimalYear = decimalYear
    }

    /// What `geo magnetic` prints: ``json`` as one line with `json`, else the plain ``lines``.
    public func lines(json: Bool) -> [String] { json ? [self.json] : lines }

    /// The plain lines: declination, inclination, the intensities, the model and year, and a
    /// `compass:` line where the horizontal intensity is below 6000 nT (caution) or 2000 nT
    /// (unreliable).
    public var lines: [String] {
        var lines = [
            "declination:          \(Self.fixed(field.declination.degrees, 4))°",
            "inclination:          \(Self.fixed(field.inclination.degrees, 4))°",
            "total intensity:      \(Self.fixed(field.totalIntensity, 1)) nT",
            "horizontal intensity: \(Self.fixed(field.horizontalIntensity, 1)) nT",
            "north, east, down:    \(Self.fixed(field.north, 1)) \(Self.fixed(field.east, 1)) \(Self.fixed(field.down, 1)) nT",
            "model, decimal year:  \(modelName) \(Self.fixed(decimalYear, 6))",
        ]
        if field.compassReliability != .reliable {
            lines.append("compass:              \(field.compassReliability.rawValue) (horizontal intensity below \(field.compassReliability == .unreliable ? 2000 : 6000) nT)")
        }
        return lines
    }

    /// One JSON object: `declination`, `inclination` (degrees), `totalIntensity`,
    /// `horizontalIntensity`, `north`, `east`, `down` (nT), `decimalYear`, then `latitude`,
    /// `longitude`, `altitude` (m) as given (round-trip), `compass` and `model`.
    public var json: String {
        var object = JSONObjectText()
        for (key, value, decimals) in [("declination", field.declination.degrees, 4), ("inclination", field.inclination.degrees, 4),
                                       ("totalIntensity", field.totalIntensity, 1), ("horizontalIntensity", field.horizontalIntensity, 1),
                                       ("north", field.north, 1), ("east", field.east, 1), ("down", field.down, 1), ("decimalYear", decimalYear, 6)] {
            object.add(key, value, JSONNumber.Quantity(decimals: Int32(decimals)))
        }
        object.add("latitude", roundTrip: coordinate.latitude)
        object.add("longitude", roundTrip: coordinate.longitude)
        object.add("altitude", roundTrip: altitude)
        object.add("compass", string: field.compassReliability.rawValue)
        object.add("model", string: modelName)
        return object.text
    }

    /// `value` with `places` decimals.
    private static func fixed(_ value: Double, _ places: Int32) -> String {
        JSONNumber.string(value, JSONNumber.Quantity(decimals: places))
    }
}
