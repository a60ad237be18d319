import Platform
public import GeoCore

/// Writes NMEA 0183 sentences (GGA, RMC, GSA, VTG) for a `Location`, so simulated or
/// replayed positions can feed any NMEA consumer (gpsd, chart plotters, navigation apps).
///
/// Formats follow NMEA 0183 v4.11: times `hhmmss.ss`, latitude `ddmm.mmmmmm`, longitude
/// `dddmm.mmmmmm` (10⁻⁶ minute ≈ 2 mm), speeds in knots with 3 decimals, angles with 2.
/// Each sentence ends with `*hh` and CR LF.
///
/// The receiver's dilutions of precision are not part of a `Location`, so they are derived
/// from its 68 % accuracies with gpsd's own error model run backwards (`NMEAErrorModel`):
/// `hdop = horizontalAccuracy × 2.4477 / 19 m`, `vdop = verticalAccuracy × 1.96 / 23 m`,
/// `pdop = √(hdop² + vdop²)`. gpsd reading the sentences then reports an `eph`/`epv` whose
/// 68 % equivalents are the original accuracies.
public enum NMEAEncoder {
    /// GGA, GSA, RMC and VTG for one location, in that order (a typical receiver cycle).
    /// - Throws: `NMEAError(.invalidLocation)` for a non-finite field.
    public static func sentences(for location: Location, talker: NMEATalker = .gps) throws(NMEAError) -> [String] {
        [try gga(location, talker: talker), try gsa(location, talker: talker),
         try rmc(location, talker: talker), try vtg(location, talker: talker)]
    }

    /// A GGA sentence: time, position, quality, satellites, HDOP, altitude and geoid separation.
    /// - Throws: `NMEAError(.invalidLocation)` for a non-finite field.
    public static func gga(_ l: Location, talker: NMEATalker = .gps) throws(NMEAError) -> String {
        try validate(l)
        let mode = l.fixMode ?? .threeDimensional
        let quality = l.fixQuality?.rawValue ?? (mode == .noFix ? 0 : 1)
        let sats = l.satelliteCount.map { pad(max(0, min(99, $0)), 2) } ?? ""
        let dop = dops(l)
        var alt = "", sep = ""
        if let a = l.altitude?.meters {
            alt = fixed(a, 2)
            if let h = l.ellipsoidalAltitude?.meters { sep = fixed(h - a, 2) }
        } else if let h = l.ellipsoidalAltitude?.meters {
            // Only the ellipsoidal height is known: report it with a zero separation.
            alt = fixed(h, 2)
            sep = "0.00"
        }
        let body = "\(talker)GGA,\(time(l.timestamp)),\(latitude(l.coordinate.latitude)),\(longitude(l.coordinate.longitude)),"
            + "\(quality),\(sats),\(dop.h.map { fixed($0, 2) } ?? ""),\(alt),M,\(sep),M,,"
        return finish(body)
    }

    /// An RMC sentence: time, status, position, speed (knots), course, date, FAA mode.
    /// - Throws: `NMEAError(.invalidLocation)` for a non-finite field.
    public static func rmc(_ l: Location, talker: NMEATalker = .gps) throws(NMEAError) -> String {
        try validate(l)
        let valid = (l.fixMode ?? .threeDimensional) != .noFix
        let speed = l.speed.map { fixed($0.knots, 3) } ?? ""
        let course = l.course.map { fixed($0.degrees, 2) } ?? ""
        let body = "\(talker)RMC,\(time(l.timestamp)),\(valid ? "A" : "V"),\(latitude(l.coordinate.latitude)),"
            + "\(longitude(l.coordinate.longitude)),\(speed),\(course),\(date(l.timestamp)),,,\(faaMode(l))"
        return finish(body)
    }

    /// A GSA sentence: automatic selection, fix mode, no satellite ids (unknown), PDOP HDOP VDOP.
    /// - Throws: `NMEAError(.invalidLocation)` for a non-finite field.
    public static func gsa(_ l: Location, talker: NMEATalker = .gps) throws(NMEAError) -> String {
        try validate(l)
        let mode = (l.fixMode ?? .threeDimensional).rawValue
        let dop = dops(l)
        let body = "\(talker)GSA,A,\(mode),,,,,,,,,,,,,\(dop.p.map { fixed($0, 2) } ?? ""),"
            + "\(dop.h.map { fixed($0, 2) } ?? ""),\(dop.v.map { fixed($0, 2) } ?? "")"
        return finish(body)
    }

    /// A VTG sentence: true course, speed in knots and km/h, FAA mode.
    /// - Throws: `NMEAError(.invalidLocation)` for a non-finite field.
    public static func vtg(_ l: Location, talker: NMEATalker = .gps) throws(NMEAError) -> String {
        try validate(l)
        let course = l.course.map { fixed($0.degrees, 2) } ?? ""
        let knots = l.speed.map { fixed($0.knots, 3) } ?? ""
        let kmh = l.speed.map { fixed($0.kilometersPerHour, 3) } ?? ""
        return finish("\(talker)VTG,\(course),T,,M,\(knots),N,\(kmh),K,\(faaMode(l))")
    }

    // MARK: - Helpers

    private static func validate(_ l: Location) throws(NMEAError) {
        let values: [Double?] = [l.coordinate.latitude, l.coordinate.longitude, l.altitude?.meters,
                                 l.ellipsoidalAltitude?.meters, l.speed?.metersPerSecond, l.course?.degrees,
                                 l.horizontalAccuracy?.meters, l.verticalAccuracy?.meters,
                                 l.timestamp.timeIntervalSince1970]
        for v in values { if let v, !v.isFinite { throw NMEAError(.invalidLocation, "location has a non-finite field") } }
        guard abs(l.coordinate.latitude) <= 90 else { throw NMEAError(.invalidLocation, "latitude outside [-90, 90]") }
    }

    /// The DOPs implied by the accuracies (see the type's documentation); nil when unknown or invalid.
    static func dops(_ l: Location) -> (h: Double?, v: Double?, p: Double?) {
        let h = l.horizontalAccuracy.flatMap { $0.meters >= 0 ? $0.meters * NMEAErrorModel.horizontal95To68 / NMEAErrorModel.positionUERE : nil }
        let v = l.verticalAccuracy.flatMap { $0.meters >= 0 ? $0.meters * NMEAErrorModel.vertical95To68 / NMEAErrorModel.verticalUERE : nil }
        var p: Double?
        if let h, let v { p = (h * h + v * v).squareRoot() }
        return (h.map { min($0, 99.99) }, v.map { min($0, 99.99) }, p.map { min($0, 99.99) })
    }

    private static func faaMode(_ l: Location) -> String {
        if l.fixMode == .noFix { return "N" }
        switch l.fixQuality {
        case .differential?: return "D"
        case .rtkFixed?: return "R"
        case .rtkFloat?: return "F"
        case .deadReckoning?: return "E"
        case .manual?: return "M"
        case .simulated?: return "S"
        case .invalid?: return "N"
        default: return "A"
        }
    }

    /// Seconds since 1970 split into a UTC date and centiseconds of the day.
    private static func split(_ date: Date) -> (days: Int, centiseconds: Int) {
        let total = (date.timeIntervalSince1970 * 100).rounded()
        var days = Int((total / 8_640_000).rounded(.down))
        var cs = Int(total - Double(days) * 8_640_000)
        if cs >= 8_640_000 { days += 1; cs -= 8_640_000 }
        return (days, cs)
    }

    private static func time(_ date: Date) -> String {
        let cs = split(date).centiseconds
        let s = cs / 100
        return pad(s / 3600, 2) + pad(s / 60 % 60, 2) + pad(s % 60, 2) + "." + pad(cs % 100, 2)
    }

    private static func date(_ date: Date) -> String {
        let d = NMEADate(daysSinceEpoch: split(date).days)
        return pad(d.day, 2) + pad(d.month, 2) + pad(d.year % 100, 2)
    }

    private static func latitude(_ v: Double) -> String { angle(v, degreeDigits: 2) + (v < 0 ? ",S" : ",N") }
    private static func longitude(_ v: Double) -> String { angle(v, degreeDigits: 3) + (v < 0 ? ",W" : ",E") }

    /// `(d)ddmm.mmmmmm` from decimal degrees, rounding in micro-minutes so 59.9999995'
    /// carries into the degrees.
    private static func angle(_ v: Double, degreeDigits: Int) -> String {
        let microMinutes = Int64((abs(v) * 60_000_000).rounded())
        let degrees = microMinutes / 60_000_000
        let rest = microMinutes % 60_000_000
        return pad(Int(degrees), degreeDigits) + pad(Int(rest / 1_000_000), 2) + "." + pad(Int(rest % 1_000_000), 6)
    }

    /// Fixed-point decimal text without Foundation's `String(format:)`; an empty field (NMEA's
    /// "no value") for a value that is not finite or has more than 18 digits, rather than a trap.
    static func fixed(_ v: Double, _ digits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        guard abs(v) * Double(scale) < 1e18 else { return "" } // NaN fails too
        let scaled = Int64((abs(v) * Double(scale)).rounded())
        let whole = scaled / scale, frac = scaled % scale
        let sign = v < 0 && scaled != 0 ? "-" : ""
        return digits == 0 ? "\(sign)\(whole)" : "\(sign)\(whole)." + pad(Int(frac), digits)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// An HDT sentence for a heading without a mode, else a THS with its mode (heading with
    /// 2 decimals, degrees true).
    /// - Throws: `NMEAError(.invalidLocation)` for a heading outside [0, 360) or not finite.
    public static func heading(_ h: NMEAHeading) throws(NMEAError) -> String {
        guard h.degrees >= 0, h.degrees < 360 else {
            throw NMEAError(.invalidLocation, "heading \(h.degrees)° is outside [0, 360)")
        }
        let degrees = fixed(h.degrees, 2) == "360.00" ? "0.00" : fixed(h.degrees, 2)
        guard let mode = h.mode else { return finish("\(h.talker)HDT,\(degrees),T") }
        return finish("\(h.talker)THS,\(degrees),\(mode.rawValue)")
    }

    /// `$` + body + `*hh` + CR LF.
    static func finish(_ body: String) -> String {
        let sum = NMEAScanner.checksum(of: body.utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        return "$" + body + "*" + String(decoding: [hex[Int(sum >> 4)], hex[Int(sum & 15)]], as: UTF8.self) + "\r\n"
    }
}
