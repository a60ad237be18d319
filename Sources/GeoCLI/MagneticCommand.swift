import ArgumentParser
import Platform
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

    @Option(parsing: .unconditional, help: ArgumentHelp("Height above the WGS84 ellipsoid, \(MagneticModel.altitudes).", valueName: "m"))
    var altitude = 0.0

    @OptionGroup var output: JSONOption

    func validate() throws {
        guard point.count == 1 else { throw ValidationError("expected one point LAT,LON, got \(point.count)") }
        _ = try Coordinate.option(point[0], "the point")
        try MagneticModel.altitudes.check(altitude, option: "--altitude")
        if date != nil { _ = try Self.decimalYear(date) }
    }

    func run() throws {
        let coordinate = try Coordinate(parsing: point[0])
        let year = try Self.decimalYear(date)
        let report: MagneticReport
        do { report = try MagneticReport(.wmm2025, at: coordinate, altitude: altitude, decimalYear: year) } catch { throw ValidationError(error.message) }
        for line in report.lines(json: output.json) { standardOutput.line(line) }
    }

    /// `--date` (`YYYY-MM-DD` at 00:00 UTC, or a decimal year; nil: now) as a decimal year the
    /// model covers.
    static func decimalYear(_ text: String?) throws -> Double {
        let model = MagneticModel.wmm2025
        do { return try text.map(model.coveredYear(parsing:)) ?? model.covering(MagneticModel.decimalYear(of: Date()), describedAs: "now") } catch let error as CompassError {
            throw ValidationError("--date: \(error.message)")
        }
    }
}
