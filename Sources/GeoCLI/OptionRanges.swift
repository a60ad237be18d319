import ArgumentParser
import GeoCore
import MapCamera
import Positioning

/// The valid ranges of the `geo` options that are not a source's (those are
/// `PositionSourceURI.Limits`), each shown in its option's help and checked in `validate()`.
enum OptionRanges {
    /// `geo track --for`: above 0 through 10⁹ s (about 31 years); a sleep that long still
    /// fits the clock's nanoseconds.
    static let trackDuration = ValidRange(above: 0, through: 1e9, unit: "s")
    /// A count of fixes or updates (`--count`): 1 through 10¹⁵.
    static let count = ValidRange(1...1e15, unit: "")
    /// `--uere`, metres of error per unit of HDOP.
    static let uere = ValidRange(above: 0, through: 1_000, unit: "m")
    /// `--assumed-accuracy`, the same range as a `gpx:` source's `accuracy`.
    static let assumedAccuracy = PositionSourceURI.Limits.assumedAccuracy
    /// `gpx smooth --acceleration`, one-sigma white acceleration of the motion model.
    static let acceleration = ValidRange(above: 0, through: 1_000, unit: "m/s²")
    /// `gpx simplify --tolerance`: up to the Earth's circumference.
    static let tolerance = ValidRange(0...40_075_017, unit: "m")
    /// `track --retry`: failed connections in a row a network source retries.
    static let retry = ValidRange(0...1_000, unit: "")
    /// `track --timeout`: seconds per connection attempt of a network source.
    static let connectTimeout = ValidRange(above: 0, through: 3_600, unit: "s")
    /// `match --accuracy`: metres (a 68 % radius) assumed for fixes that report none.
    static let matchAccuracy = ValidRange(above: 0, through: 1_000, unit: "m")
    /// `visits --radius`: above 0 through 10 km.
    static let visitRadius = ValidRange(above: 0, through: 10_000, unit: "m")
    /// `visits --min-duration`: above 0 through 10⁹ s.
    static let visitDuration = ValidRange(above: 0, through: 1e9, unit: "s")
    /// `visits --departure-fixes`.
    static let departureFixes = ValidRange(1...1_000, unit: "")
    /// `beacons --interval`: 1 ms through one hour (so that `--for` over it, up to 10⁹ s, is
    /// a count of reports that fits an `Int`).
    static let rangingInterval = ValidRange(0.001...3_600, unit: "s")
    /// `monitor --dwell`: seconds inside before a dwell event, up to a year.
    static let dwell = ValidRange(above: 0, through: 31_557_600, unit: "s")
    /// `tiles build --minzoom / --maxzoom`: the zooms `MapTiler` cuts.
    static let tileZoom = ValidRange(0...16, unit: "")
    /// `tiles build --store-memory`: MiB a node or way store keeps in memory (0: all in
    /// scratch files) up to 1 TiB.
    static let storeMemory = ValidRange(0...1_048_576, unit: "MiB")
    /// `map animate --duration`: up to an hour of animation.
    static let animationDuration = ValidRange(0...3_600, unit: "s")
    /// `map animate --fps`: frames per second.
    static let framesPerSecond = ValidRange(1...240, unit: "")
    /// `snapshot --tilt`, degrees from straight down: a camera's as `map animate --from/--to` write it.
    static let tilt = CameraState.writtenTilts
    /// `eval --seeds`.
    static let seeds = ValidRange(1...10_000, unit: "")
    /// `snapshot --zoom`: the world at 256 px (0) to about 1.5 cm per pixel (22).
    static let snapshotZoom = ValidRange(0...22, unit: "")
    /// `map --port`: a TCP port; 0 lets the system pick one.
    static let port = ValidRange(0...65_535, unit: "")
    /// `serve-tracking --retention-days`: 1 day through 100 years.
    static let retentionDays = ValidRange(1...36_525, unit: "days")
    /// `snapshot --size`, pixels a side (an 8192² RGBA image is 256 MiB).
    static let snapshotSide = ValidRange(1...8_192, unit: "px")
}

extension ValidRange {
    /// Throws a `ValidationError` naming `option` and the range when `value` is outside.
    func check(_ value: Double?, option: String) throws {
        guard let value, !contains(value) else { return }
        throw ValidationError("\(option) must be \(self), got \(value)")
    }

    /// Throws a `ValidationError` naming `option` and the range when `value` is outside.
    func check(_ value: Int?, option: String) throws {
        guard let value, !contains(value) else { return }
        throw ValidationError("\(option) must be \(self), got \(value)")
    }
}
