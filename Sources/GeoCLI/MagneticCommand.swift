import ArgumentParser
import Foundation
import GeoBase
import GeoCore
import Compass

/// `geo magnetic`: the Earth's main field from the World Magnetic Model 2025.
struct MagneticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "magnetic",
        abstract: "Declination, inclination and field strength from the World Magnetic Model 2025.",
        discussion: """
            geo magnetic LAT,LON prints the declination (east positive), the inclination (down \
            positive), both in degrees, and the total, horizontal, north, east and down \
            intensities in nT, for 00:00 UTC of --date (YYYY-MM-DD or a decimal year such as \
            2027.5; default now) at --altitude metres above the WGS84 ellipsoid. The model \
            (NOAA NCEI / BGS, public domain) is valid 2025.0 through 2030.0; a compass is \
            unreliable where the horizontal intensity is below 2000 nT (its blackout zone).
            """
    )

    // .allUnrecognized: a southern or western point ("-33.92,18.42") is the point, not an option.
    @Argument(parsing: .allUnrecognized, help: "The point as LAT,LON in decimal degrees.")
    var point: [String] = []

    @Option(parsing: .unconditional, help: "YYYY-MM-DD (00:00 UTC) or a decimal year, 2025.0…2030.0 (default: now).")
    var date: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Height above the WGS84 ellipsoid, \(OptionRanges.magneticAltitude).", valueName: "m"))
    var altitude = 0.0

    @OptionGroup var output: JSONOption

    func validate() throws {
        guard point.count == 1 else { throw ValidationError("expected one point LAT,LON, got \(point.count)") }
        do {
            _ = try Coordinate(parsing: point[0])
        } catch {
            throw ValidationError("\(error.message)")
        }
        try OptionRanges.magneticAltitude.check(altitude, option: "--altitude")
        if let date { _ = try Self.decimalYear(date) }
    }

    func run() throws {
        let coordinate = try Coordinate(parsing: point[0])
        let year = try date.map(Self.decimalYear) ?? Self.checked(MagneticModel.decimalYear(of: Date()), "now")
        let model = MagneticModel.wmm2025
        let field: MagneticField
        do {
            field = try model.field(at: coordinate, altitude: .meters(altitude), decimalYear: year)
        } catch {
            throw ValidationError(error.message)
        }
        let d = Self.fixed(field.declination.degrees, 4), i = Self.fixed(field.inclination.degrees, 4)
        let f = Self.fixed(field.totalIntensity, 1), h = Self.fixed(field.horizontalIntensity, 1)
        let x = Self.fixed(field.north, 1), y = Self.fixed(field.east, 1), z = Self.fixed(field.down, 1)
        if output.json {
            var object = JSONObjectText()
            for (key, value, decimals) in [("declination", field.declination.degrees, 4), ("inclination", field.inclination.degrees, 4),
                                           ("totalIntensity", field.totalIntensity, 1), ("horizontalIntensity", field.horizontalIntensity, 1),
                                           ("north", field.north, 1), ("east", field.east, 1), ("down", field.down, 1), ("decimalYear", year, 6)] {
                object.add(key, value, JSONNumber.Quantity(decimals: Int32(decimals)))
            }
            object.add("latitude", roundTrip: coordinate.latitude)
            object.add("longitude", roundTrip: coordinate.longitude)
            object.add("altitude", roundTrip: altitude)
            object.add("compass", string: field.compassReliability.rawValue)
            object.add("model", string: model.name)
            standardOutput.line(object.text)
        } else {
            standardOutput.line("declination:          \(d)°")
            standardOutput.line("inclination:          \(i)°")
            standardOutput.line("total intensity:      \(f) nT")
            standardOutput.line("horizontal intensity: \(h) nT")
            standardOutput.line("north, east, down:    \(x) \(y) \(z) nT")
            standardOutput.line("model, decimal year:  \(model.name) \(Self.fixed(year, 6))")
            if field.compassReliability != .reliable {
                standardOutput.line("compass:              \(field.compassReliability.rawValue) (horizontal intensity below \(field.compassReliability == .unreliable ? 2000 : 6000) nT)")
            }
        }
    }

    /// `YYYY-MM-DD` (00:00 UTC) or a decimal year, as a decimal year.
    static func decimalYear(_ text: String) throws -> Double {
        do { return try checked(MagneticModel.decimalYear(parsing: text), "'\(text)'") } catch let error as CompassError {
            throw ValidationError("--date: \(error.message)")
        }
    }

    /// `year` when the model covers it, else a `ValidationError` naming `what`.
    private static func checked(_ year: Double, _ what: String) throws -> Double {
        let valid = MagneticModel.wmm2025.validYears
        guard valid.contains(year) else {
            throw ValidationError("--date: \(MagneticModel.wmm2025.name) is valid \(valid.lowerBound)…\(valid.upperBound), got \(what)")
        }
        return year
    }

    /// `value` with `places` decimals, as the plain form prints it.
    private static func fixed(_ value: Double, _ places: Int32) -> String {
        JSONNumber.string(value, JSONNumber.Quantity(decimals: places))
    }
}
