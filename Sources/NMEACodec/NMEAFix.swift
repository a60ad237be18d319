public import Platform
public import GeoCore

/// One satellite of a sky view.
public struct SkySatellite: Hashable, Sendable, Codable {
    /// The constellation, from the NMEA 4.11 system id, the talker, or the id range.
    public var system: GNSSSystem?
    /// The id as the receiver sent it in GSV.
    public var id: Int
    /// NMEA 4.11 signal id, when sent.
    public var signalID: Int?
    /// Elevation, degrees above the horizon.
    public var elevation: Double?
    /// Azimuth, degrees clockwise from true north.
    public var azimuth: Double?
    /// Carrier-to-noise density, dB-Hz.
    public var snr: Double?
    /// Whether a GSA listed it as used in the solution.
    public var used: Bool

    public init(system: GNSSSystem?, id: Int, signalID: Int? = nil, elevation: Double? = nil,
                azimuth: Double? = nil, snr: Double? = nil, used: Bool = false) {
        self.system = system
        self.id = id
        self.signalID = signalID
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}

/// The satellites a receiver sees and uses, with its dilutions of precision (gpsd's `SKY`).
public struct SatelliteSky: Hashable, Sendable, Codable {
    /// Satellites from the last complete GSV series, one entry per satellite and signal.
    public var satellites: [SkySatellite]
    /// Satellites used in the solution (GGA/GNS count, else the GSA lists).
    public var satellitesUsed: Int?
    /// Horizontal, position (3D) and vertical dilution of precision.
    public var hdop: Double?
    public var pdop: Double?
    public var vdop: Double?

    public init(satellites: [SkySatellite] = [], satellitesUsed: Int? = nil, hdop: Double? = nil,
                pdop: Double? = nil, vdop: Double? = nil) {
        self.satellites = satellites
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.pdop = pdop
        self.vdop = vdop
    }

    /// Distinct satellites in view (a satellite seen on two signals counts once).
    public var satellitesVisible: Int {
        var seen = Set<Int>()
        for s in satellites { seen.insert((s.system?.rawValue ?? 0) << 16 | s.id) }
        return seen.count
    }
}

/// One reporting cycle (epoch) of a receiver, assembled from its sentences the way gpsd
/// assembles a TPV report.
///
/// Error estimates follow gpsd's conventions so they can be compared with gpsd: `eph` and
/// `epv` are 95 % figures in metres. `location` converts them to the 68 % (one-sigma)
/// accuracies `Location` uses (see `NMEAErrorModel`).
public struct NMEAFix: Hashable, Sendable {
    /// UTC time of the fix; nil until a date is known (from RMC or ZDA).
    public var time: Date?
    /// UTC date and time of day as the receiver sent them (after week-rollover correction).
    public var date: NMEADate?
    public var timeOfDay: NMEATimeOfDay?
    /// Fix dimension; nil when no sentence of the epoch said (gpsd's mode 0).
    public var mode: FixMode?
    /// GGA quality indicator, when a GGA came.
    public var quality: FixQuality?
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Altitude above the WGS84 ellipsoid (`altitudeMSL + geoidSeparation`), metres.
    public var altitudeHAE: Double?
    /// Geoid height above the ellipsoid, metres: the receiver's (GGA/GNS), else the one
    /// `geoidModel` gives at the fix's position.
    public var geoidSeparation: Double?
    /// The name of the geoid model (`NMEADecoder.Options.geoid`) that gave `geoidSeparation`,
    /// and so `altitudeHAE`, when the receiver sent no separation; nil when it sent one.
    public var geoidModel: String?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var track: Double?
    /// Vertical speed from consecutive 3D fixes, metres per second, up positive.
    public var climb: Double?
    /// True heading (HDT or THS), degrees in [0, 360); a sentence's heading outside 0…360° is
    /// dropped.
    public var heading: Double?
    /// THS's mode for `heading` (`.notValid`: the heading must not be used); nil for HDT.
    public var headingMode: NMEAHeading.Mode?
    /// Magnetic variation (RMC), degrees east.
    public var magneticVariation: Double?
    /// 95 % horizontal error radius, metres (gpsd `eph`).
    public var eph: Double?
    /// 95 % vertical error, metres (gpsd `epv`).
    public var epv: Double?
    /// One-sigma latitude/longitude/altitude errors from GST, metres.
    public var latitudeSigma: Double?
    public var longitudeSigma: Double?
    public var altitudeSigma: Double?
    /// Satellites used and seen, and the DOPs.
    public var sky: SatelliteSky
    /// 1-based input line of the epoch's first sentence.
    public var line: Int

    public init(line: Int = 0) {
        sky = SatelliteSky()
        self.line = line
    }

    /// The fix as a GeoCore `Location`, when it has a time and a position.
    ///
    /// Accuracies are 68 % figures: from GST one-sigma values when the receiver sent GST
    /// (horizontal: the root mean square of the latitude and longitude sigmas), else from
    /// gpsd's 95 % DOP-based `eph`/`epv` divided by `NMEAErrorModel.horizontal95To68` and
    /// `vertical95To68`.
    public var location: Location? {
        guard let time, let latitude, let longitude, let mode, mode >= .twoDimensional else { return nil }
        var horizontal: Distance?
        var vertical: Distance?
        if let la = latitudeSigma, let lo = longitudeSigma {
            horizontal = .meters(((la * la + lo * lo) / 2).squareRoot())
        } else if let eph {
            horizontal = .meters(eph / NMEAErrorModel.horizontal95To68)
        }
        if let altitudeSigma {
            vertical = .meters(altitudeSigma)
        } else if let epv {
            vertical = .meters(epv / NMEAErrorModel.vertical95To68)
        }
        return Location(
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude)),
            timestamp: time,
            altitude: mode == .threeDimensional ? altitudeMSL.map(Distance.meters) : nil,
            ellipsoidalAltitude: mode == .threeDimensional ? altitudeHAE.map(Distance.meters) : nil,
            horizontalAccuracy: horizontal,
            verticalAccuracy: mode == .threeDimensional ? vertical : nil,
            speed: speed.map(Speed.metersPerSecond),
            course: track.map(Bearing.degrees),
            climb: climb.map(Speed.metersPerSecond),
            fixMode: mode,
            fixQuality: quality,
            satelliteCount: sky.satellitesUsed
        )
    }
}

/// gpsd's error model and the 95 % ↔ 68 % conversions LocationKit uses.
///
/// gpsd reports `eph` (horizontal) and `epv` (vertical) as 95 % confidence figures. When a
/// receiver sends no error statistics gpsd estimates them as DOP × UERE (user equivalent
/// range error): `eph = hdop × 19.0 m`, `epv = vdop × 23.0 m`, or with differential
/// corrections (GGA quality 2) `4.75 m` and `5.75 m` (gpsd `libgpsd_core.c`,
/// `gpsd_error_model`: `P_UERE_NO_DGPS`, `V_UERE_NO_DGPS`, `*_WITH_DGPS`).
///
/// To a `Location`'s 68 % figures:
/// - horizontal: a 95 % circle of a circular bivariate normal error with per-axis sigma σ has
///   radius σ·√(−2 ln 0.05) = 2.4477 σ, so the one-sigma value is `eph / 2.4477`;
/// - vertical: a 95 % interval of a normal error is ±1.96 σ, so σ = `epv / 1.96`.
public enum NMEAErrorModel {
    /// √(−2 ln 0.05): the 95 % radius of a circular normal error over its per-axis sigma.
    public static let horizontal95To68 = 2.447_746_830_680_816
    /// The two-sided 95 % quantile of the normal distribution.
    public static let vertical95To68 = 1.96
    /// gpsd's UERE, metres, without differential corrections: horizontal (position) and vertical.
    public static let positionUERE = 19.0, verticalUERE = 23.0
    /// gpsd's UERE, metres, with differential corrections.
    public static let positionUEREDifferential = 4.75, verticalUEREDifferential = 5.75
}

extension NMEAFix {
    /// The fix time as ISO 8601 UTC with milliseconds, as gpsd prints it
    /// (`2019-04-12T00:39:56.000Z`); nil without a date.
    public var isoTime: String? {
        withISOTime { bytes in bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Calls `body` with the UTF-8 of ``isoTime`` in a stack buffer (nil without a date or a
    /// time), so a writer can copy it without building a `String`.
    ///
    /// Milliseconds are rounded half up as gpsd's printf does; a carry into the next second
    /// cannot happen because NMEA times have at most millisecond resolution in practice, but
    /// is handled by truncating at 999.
    public func withISOTime<Result>(_ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows -> Result {
        guard let date, let timeOfDay else { return try body(nil) }
        let millis = min(999, (timeOfDay.nanoseconds + 500_000) / 1_000_000)
        // Seven Int fields of at most 20 characters each and seven separators.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 160) { buffer in
            var count = 0
            func put(_ byte: UInt8) { buffer[count] = byte; count += 1 }
            /// `v` in decimal, zero-padded to `width` digits.
            func put(_ v: Int, width: Int) {
                if v < 0 { put(UInt8(ascii: "-")) }
                var magnitude = v.magnitude, digits = 0
                var m = magnitude
                repeat { digits += 1; m /= 10 } while m > 0
                let end = count + max(width, digits)
                var i = end
                while i > count { i -= 1; buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10); magnitude /= 10 }
                count = end
            }
            put(date.year, width: 4); put(UInt8(ascii: "-")); put(date.month, width: 2); put(UInt8(ascii: "-"))
            put(date.day, width: 2); put(UInt8(ascii: "T")); put(timeOfDay.hour, width: 2); put(UInt8(ascii: ":"))
            put(timeOfDay.minute, width: 2); put(UInt8(ascii: ":")); put(timeOfDay.second, width: 2)
            put(UInt8(ascii: ".")); put(millis, width: 3); put(UInt8(ascii: "Z"))
            return try body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
