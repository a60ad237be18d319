public import GeoCore

/// The valid ranges of a track point's numeric fields. The reader leaves a value outside out
/// with a located `invalidValue` warning (as a malformed one), so no absurd number reaches the
/// arithmetic downstream (lengths, speeds, Kalman filters).
public enum GPXFieldRanges {
    /// `<course>`, `<magvar>`: GPX 1.1's `degreesType`, 0 ≤ value < 360 (360 itself is
    /// accepted: writers round 359.99…).
    public static let degrees = ValidRange(0...360, unit: "°")
    /// `<ele>`: from below the deepest ocean trench to beyond low Earth orbit.
    public static let elevation = ValidRange(-12_000...1_000_000, unit: "m")
    /// `<geoidheight>`: the geoid departs from WGS84 by about −107 to +86 m (EGM96).
    public static let geoidHeight = ValidRange(-200...200, unit: "m")
    /// `<hdop>`, `<vdop>`, `<pdop>`: dilutions of precision are not negative; receivers cap theirs at
    /// 99.99, some write 100–9999 for "no fix".
    public static let dilution = ValidRange(0...10_000, unit: "")
    /// `<ageofdgpsdata>`: seconds since the last DGPS update, up to a day.
    public static let dgpsAge = ValidRange(0...86_400, unit: "s")
    /// `<speed>` (GPX 1.0): 0 through 10 km/s, the same ceiling as a simulated source's speed.
    public static let speed = ValidRange(0...10_000, unit: "m/s")
}
