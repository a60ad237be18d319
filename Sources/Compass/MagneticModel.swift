public import GeoBase
public import GeoCore
public import Platform

/// A spherical-harmonic model of the Earth's main magnetic field: the World Magnetic Model
/// (``wmm2025``) or any model in its `.COF` layout up to degree 12 or more.
///
/// The synthesis follows the WMM 2025 technical report (Chulliat et al., NOAA NCEI 2024, §1.2):
/// the Gauss coefficients moved to the date by their secular variation (eq. 9), the geodetic
/// position converted to geocentric spherical coordinates on WGS84 (eqs. 7–8), the field summed
/// with Schmidt semi-normalised associated Legendre functions (eqs. 10–12) and rotated back to
/// the geodetic frame (eq. 17), then declination, inclination and intensities (eq. 19).
public struct MagneticModel: Sendable {
    /// The model's name from its header, e.g. "WMM-2025".
    public let name: String
    /// The reference epoch as a decimal year, e.g. 2025.0.
    public let epoch: Double
    /// The release date from the header, as written there (e.g. "11/13/2024").
    public let releaseDate: String
    /// The highest degree of the expansion (12 for the WMM).
    public let degree: Int
    /// g, h, ġ, ḣ per (n, m), at index `n * (n + 1) / 2 + m` (nT and nT/year).
    private let g: [Double], h: [Double], gDot: [Double], hDot: [Double]

    /// The years the model is valid for: five years from its epoch (the WMM's lifetime).
    public var validYears: ClosedRange<Double> { epoch...(epoch + 5) }

    /// The heights above the WGS84 ellipsoid the model is stated for: −1 km to 850 km (the WMM
    /// report's range, for the WMM and its high-resolution sibling alike).
    public static let altitudes = ValidRange(-1_000...850_000, unit: "m")

    /// The World Magnetic Model 2025 (NOAA NCEI / BGS, public domain), valid 2025.0–2030.0.
    public static let wmm2025: MagneticModel = {
        do {
            return try MagneticModel(coefficients: MagneticModelCoefficients.wmm2025)
        } catch {
            fatalError("Broken contract: the built-in WMM2025 coefficients do not parse: \(error)")
        }
    }()

    /// The geomagnetic reference radius, 6371.2 km (WMM report §1.2).
    static let referenceRadius = 6371.2

    /// Reads a model from the text of a `.COF` file: a header line `epoch name release-date`,
    /// then lines `n m g h ġ ḣ`, ended by a line of nines or the end of the text.
    /// - Throws: ``CompassError`` `.invalidCoefficients` naming the line at fault.
    public init(coefficients text: String) throws(CompassError) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().makeIterator()
        var header: [Substring] = []
        while header.isEmpty, let (_, line) = lines.next() { header = line.split(whereSeparator: \.isWhitespace) }
        guard header.count >= 2, let epoch = Double(header[0]), epoch.isFinite else {
            throw CompassError(.invalidCoefficients, "expected a header 'epoch name date'", at: "line 1")
        }
        var rows: [(n: Int, m: Int, values: [Double], line: Int)] = []
        while let (index, line) = lines.next() {
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.isEmpty { continue }
            if fields.count == 1, fields[0].allSatisfy({ $0 == "9" }) { break }
            guard fields.count == 6, let n = Int(fields[0]), let m = Int(fields[1]),
                  (1...100).contains(n), (0...n).contains(m) else {
                throw CompassError(.invalidCoefficients, "expected 'n m g h gdot hdot' with 1 ≤ n ≤ 100, 0 ≤ m ≤ n", at: "line \(index + 1)")
            }
            let values = fields[2...].compactMap { Double($0) }.filter(\.isFinite)
            guard values.count == 4 else {
                throw CompassError(.invalidCoefficients, "a coefficient is not a finite number", at: "line \(index + 1)")
            }
            rows.append((n, m, values, index + 1))
        }
        guard let degree = rows.map(\.n).max() else {
            throw CompassError(.invalidCoefficients, "no coefficients after the header", at: "the end")
        }
        let count = (degree + 1) * (degree + 2) / 2
        guard rows.count == count - 1 else {
            throw CompassError(.invalidCoefficients, "expected \(count - 1) coefficient lines for degree \(degree), found \(rows.count)", at: "the end")
        }
        var g = [Double](repeating: 0, count: count), h = g, gDot = g, hDot = g
        var seen = [Bool](repeating: false, count: count)
        for row in rows {
            let k = row.n * (row.n + 1) / 2 + row.m
            guard !seen[k] else {
                throw CompassError(.invalidCoefficients, "coefficient n=\(row.n) m=\(row.m) appears twice", at: "line \(row.line)")
            }
            seen[k] = true
            (g[k], h[k], gDot[k], hDot[k]) = (row.values[0], row.values[1], row.values[2], row.values[3])
        }
        self.name = String(header[1])
        self.epoch = epoch
        self.releaseDate = header.count > 2 ? String(header[2]) : ""
        self.degree = degree
        (self.g, self.h, self.gDot, self.hDot) = (g, h, gDot, hDot)
    }

    /// The main field at a point and time.
    /// - Parameters:
    ///   - coordinate: the geodetic (WGS84) position.
    ///   - altitude: the height above the WGS84 ellipsoid (not above sea level).
    ///   - decimalYear: the time as a decimal year (``decimalYear(of:)``), inside ``validYears``.
    /// - Throws: ``CompassError`` for a date outside the model or an altitude outside
    ///   ``altitudes``.
    /// - Complexity: O(degree²).
    public func field(at coordinate: Coordinate, altitude: Distance = .zero, decimalYear: Double) throws(CompassError) -> MagneticField {
        guard validYears.contains(decimalYear) else {
            throw CompassError(.dateOutsideModel, "\(name) is valid \(epoch)–\(epoch + 5), not \(decimalYear)", at: "decimal year \(decimalYear)")
        }
        guard Self.altitudes.contains(altitude.meters) else {
            throw CompassError(.altitudeOutsideModel, "altitude \(altitude.meters) m is outside \(Self.altitudes)", at: "altitude \(altitude.meters) m")
        }
        let dt = decimalYear - epoch

        // Geodetic → geocentric spherical (eq. 7–8), in km.
        let a = Ellipsoid.a / 1000, e2 = Ellipsoid.f * (2 - Ellipsoid.f)
        let phi = coordinate.latitude * .pi / 180, lambda = coordinate.longitude * .pi / 180
        let hKm = altitude.meters / 1000
        let sinPhi = sin(phi), cosPhi = cos(phi)
        let rc = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (rc + hKm) * cosPhi, z = (rc * (1 - e2) + hKm) * sinPhi
        let r = (p * p + z * z).squareRoot()
        let phiC = asin(z / r)
        let t = sin(phiC), u = cos(phiC)

        let legendre = SchmidtLegendre(degree: degree, sine: t, cosine: u)
        var north = 0.0, east = 0.0, down = 0.0
        var ratio = Self.referenceRadius / r
        let ratio2 = ratio * ratio
        ratio *= ratio2 // (a/r)^(n+2) for n = 1
        for n in 1...degree {
            for m in 0...n {
                let k = n * (n + 1) / 2 + m
                let gk = g[k] + dt * gDot[k], hk = h[k] + dt * hDot[k]
                let cosML = cos(Double(m) * lambda), sinML = sin(Double(m) * lambda)
                let radial = gk * cosML + hk * sinML
                north -= ratio * radial * legendre.derivative[k]
                down -= Double(n + 1) * ratio * radial * legendre.value[k]
                if m > 0 { east += ratio * Double(m) * (gk * sinML - hk * cosML) * legendre.valueOverCosine[k] }
            }
            ratio *= Self.referenceRadius / r
        }
        // Geocentric → geodetic frame (eq. 17): a rotation by φ' − φ about the east axis.
        let psi = phiC - phi
        return MagneticField(north: north * cos(psi) - down * sin(psi), east: east,
                             down: north * sin(psi) + down * cos(psi))
    }

    /// The main field at a point at an instant.
    public func field(at coordinate: Coordinate, altitude: Distance = .zero, date: Date) throws(CompassError) -> MagneticField {
        try field(at: coordinate, altitude: altitude, decimalYear: Self.decimalYear(of: date))
    }

    /// An instant as a decimal year, UTC: the year plus the fraction of it gone (days of 365 or
    /// 366), as NOAA's software and pygeomag count it; 2025-07-02T12:00Z is 2025.5.
    public static func decimalYear(of date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        let days = (seconds / 86_400).rounded(.down)
        let year = CivilCalendar.date(fromDays: Int(days)).year
        let start = Double(CivilCalendar.seconds(year: year, month: 1, day: 1))
        let end = Double(CivilCalendar.seconds(year: year + 1, month: 1, day: 1))
        return Double(year) + (seconds - start) / (end - start)
    }

    /// `year` when the model covers it (``validYears``), for a caller that names where the
    /// year came from (`what`: the text given, "now").
    /// - Throws: `CompassError.dateOutsideModel` at `what`: "WMM-2025 is valid 2025.0…2030.0,
    ///   got 'WHAT'".
    public func covering(_ year: Double, describedAs what: String) throws(CompassError) -> Double {
        guard validYears.contains(year) else {
            throw CompassError(.dateOutsideModel, "\(name) is valid \(validYears.lowerBound)…\(validYears.upperBound), got \(what)", at: what)
        }
        return year
    }

    /// `text` as a decimal year (``decimalYear(parsing:)``) that the model covers: `geo magnetic --date`.
    /// - Throws: `CompassError.invalidDate` for text of neither form, `.dateOutsideModel`
    ///   (``covering(_:describedAs:)``, naming `'TEXT'`) outside ``validYears``.
    public func coveredYear(parsing text: String) throws(CompassError) -> Double {
        try covering(Self.decimalYear(parsing: text), describedAs: "'\(text)'")
    }

    /// A date as a decimal year, as `geo magnetic --date` takes it: `YYYY-MM-DD` (00:00 UTC of
    /// that day, counted as ``decimalYear(of:)`` counts: 2025-07-02 is 2025.49863, day 182 of
    /// 365) or a decimal number such as `2027.5`. Whether the year is inside ``validYears`` is
    /// the caller's to check.
    /// - Throws: `CompassError.invalidDate` at the text: neither form, or a day that does not
    ///   exist (2025-02-29).
    public static func decimalYear(parsing text: String) throws(CompassError) -> Double {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
           let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) {
            guard CivilCalendar.isValid(year: y, month: m, day: d) else { throw CompassError(.invalidDate, "no such day '\(text)'", at: text) }
            let start = CivilCalendar.days(year: y, month: 1, day: 1)
            let length = CivilCalendar.days(year: y + 1, month: 1, day: 1) - start
            return Double(y) + Double(CivilCalendar.days(year: y, month: m, day: d) - start) / Double(length)
        }
        guard let year = Double(text), year.isFinite, parts.count == 1 else {
            throw CompassError(.invalidDate, "expected YYYY-MM-DD or a decimal year, got '\(text)'", at: text)
        }
        return year
    }

    /// The WGS84 ellipsoid as the WMM uses it: semi-major axis in metres and flattening.
    private enum Ellipsoid {
        static let a = 6_378_137.0
        static let f = 1 / 298.257223563
    }
}

/// Schmidt semi-normalised associated Legendre functions P̆ₙᵐ(sin φ') and their derivatives
/// with respect to φ', without the Condon–Shortley phase (WMM report eqs. 4–5), by the standard
/// recursions in n for fixed m (e.g. Winch et al. 2005, Geophys. J. Int. 160, eqs. A5–A8).
/// `valueOverCosine` is P̆ₙᵐ / cos φ' for m ≥ 1, run through the same linear recursion from
/// P̆ₘᵐ / cos φ' (a polynomial in cos φ'), so the east component needs no division and stays
/// finite at the poles.
private struct SchmidtLegendre {
    var value: [Double], derivative: [Double], valueOverCosine: [Double]

    init(degree: Int, sine t: Double, cosine u: Double) {
        let count = (degree + 1) * (degree + 2) / 2
        value = [Double](repeating: 0, count: count)
        derivative = value
        valueOverCosine = value
        func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }
        value[0] = 1
        for m in 0...degree {
            let mm = index(m, m)
            if m == 1 {
                value[mm] = u
                derivative[mm] = -t
                valueOverCosine[mm] = 1
            } else if m > 1 {
                // P̆ₘᵐ = √((2m−1)/(2m)) · cos φ' · P̆ₘ₋₁ᵐ⁻¹
                let k = (Double(2 * m - 1) / Double(2 * m)).squareRoot(), prev = index(m - 1, m - 1)
                value[mm] = k * u * value[prev]
                derivative[mm] = k * (u * derivative[prev] - t * value[prev])
                valueOverCosine[mm] = k * u * valueOverCosine[prev]
            }
            guard m < degree else { break }
            for n in (m + 1)...degree {
                // P̆ₙᵐ = ((2n−1) sin φ' P̆ₙ₋₁ᵐ − √((n−1)²−m²) P̆ₙ₋₂ᵐ) / √(n²−m²)
                let here = index(n, m), one = index(n - 1, m)
                let a = Double(2 * n - 1), d = Double(n * n - m * m).squareRoot()
                let b = n - 2 >= m ? Double((n - 1) * (n - 1) - m * m).squareRoot() : 0
                let two = n - 2 >= m ? index(n - 2, m) : 0
                let older = n - 2 >= m
                value[here] = (a * t * value[one] - (older ? b * value[two] : 0)) / d
                derivative[here] = (a * (t * derivative[one] + u * value[one]) - (older ? b * derivative[two] : 0)) / d
                valueOverCosine[here] = (a * t * valueOverCosine[one] - (older ? b * valueOverCosine[two] : 0)) / d
            }
        }
    }
}

/// The main geomagnetic field at a point: its components in the local geodetic frame (nT) and
/// the elements derived from them (WMM report eq. 19).
public struct MagneticField: Hashable, Sendable {
    /// X, the northward component, nT.
    public var north: Double
    /// Y, the eastward component, nT.
    public var east: Double
    /// Z, the downward component, nT.
    public var down: Double

    public init(north: Double, east: Double, down: Double) {
        self.north = north
        self.east = east
        self.down = down
    }

    /// H, nT.
    public var horizontalIntensity: Double { (north * north + east * east).squareRoot() }
    /// F, nT.
    public var totalIntensity: Double { (north * north + east * east + down * down).squareRoot() }
    /// D, the angle from true north to magnetic north, east positive.
    public var declination: Angle { .radians(atan2(east, north)) }
    /// I, the dip below the horizontal, down positive.
    public var inclination: Angle { .radians(atan2(down, horizontalIntensity)) }

    /// Where the compass is unreliable: H below 2000 nT is the WMM's blackout zone, below
    /// 6000 nT its caution zone (WMM report §3.2).
    public var compassReliability: CompassReliability {
        let h = horizontalIntensity
        return h < 2_000 ? .unreliable : h < 6_000 ? .caution : .reliable
    }
}

/// How far a magnetic compass can be trusted where a field is (``MagneticField/compassReliability``).
public enum CompassReliability: String, Hashable, Sendable {
    case reliable, caution, unreliable
}
