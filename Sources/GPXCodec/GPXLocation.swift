public import GeoCore
import GeoBase

/// How a GPX point's horizontal accuracy becomes a `Location`'s: LocationKit's one policy,
/// used by the position log, the replay source and the `geo gpx` track commands.
///
/// GPX 1.1 has no accuracy element, so the bridge takes the first of:
/// 1. the accuracy recorded in LocationKit's point extension (`lk:acc`, written by
///    ``GPXPoint/init(location:)``), a 68 % radius as `Location` defines it;
/// 2. the point's `hdop` times ``uere`` (one-sigma user equivalent range error; Langley,
///    "Dilution of precision", GPS World 1999);
/// 3. ``assumed``, for callers whose filters need some accuracy to judge;
/// 4. none (nil).
///
/// Before the bridge the callers disagreed on step 2: the track commands used HDOP, the
/// `gpx:` replay source ignored it and assumed 10 m at once. The bridge uses HDOP wherever a
/// file has it, since a per-point figure says more than a constant; no test depended on the
/// difference. The vertical accuracy comes from `lk:vacc` only (VDOP is rarely written and
/// no caller used it).
public struct GPXAccuracyPolicy: Hashable, Sendable {
    /// One-sigma horizontal error per unit of HDOP; nil ignores HDOP.
    public var uere: Distance?
    /// The accuracy of a point with neither a recorded accuracy nor a usable HDOP; nil
    /// leaves it missing.
    public var assumed: Distance?
    /// The UEREs a user may give, metres of error per unit of HDOP: above 0 through 1 km.
    public static let ueres = ValidRange(above: 0, through: 1_000, unit: "m")
    /// The `assumed` accuracies a user may give, metres (68 % radius): above 0 through 10 km.
    public static let assumedAccuracies = ValidRange(above: 0, through: 10_000, unit: "m")

    public init(uere: Distance? = .meters(5), assumed: Distance? = nil) {
        self.uere = uere
        self.assumed = assumed
    }

    /// Recorded accuracy, else HDOP × 5 m, else none.
    public static let `default` = GPXAccuracyPolicy()

    /// The horizontal accuracy of a point with the given recorded accuracy and HDOP.
    public func horizontalAccuracy(recorded: Distance?, hdop: Double?) -> Distance? {
        if let recorded { return recorded }
        if let uere, let hdop, hdop.isFinite, hdop >= 0 { return uere * hdop }
        return assumed
    }
}

extension GPXPoint {
    /// The XML namespace of LocationKit's point extension, which carries the `Location`
    /// fields GPX 1.1 lacks.
    public static let locationExtensionNamespace = "urn:locationkit:gpx-log:1"
    /// The prefix LocationKit binds to ``locationExtensionNamespace`` when it writes.
    public static let locationExtensionPrefix = "lk"

    /// The track point that carries every field of `location`: `time`, `ele` (height above
    /// mean sea level), `fix` and `sat` from GPX, and the rest in LocationKit's extension:
    ///
    /// ```xml
    /// <trkpt lat="48.1" lon="11.5"><ele>520.5</ele><time>2026-09-21T08:00:00Z</time>
    ///   <extensions><lk:acc>4.5</lk:acc><lk:speed>13.9</lk:speed><lk:course>87</lk:course></extensions>
    /// </trkpt>
    /// ```
    ///
    /// Extension elements: `acc` / `vacc` (horizontal / vertical accuracy, m), `speed` (m/s),
    /// `sacc` (speed accuracy, m/s), `course` (degrees from true north), `cacc` (course
    /// accuracy, degrees), `climb` (m/s), `hae` (height above the WGS84 ellipsoid, m), `q`
    /// (GGA fix quality). The document must bind ``locationExtensionPrefix`` to
    /// ``locationExtensionNamespace``. `Location(gpxPoint:)` reads the point back unchanged.
    public init(location: Location) {
        self.init(coordinate: location.coordinate, elevation: location.altitude, time: location.timestamp)
        switch location.fixMode {
        case .noFix?: fix = GPXFix.none
        case .twoDimensional?: fix = .twoDimensional
        case .threeDimensional?: fix = .threeDimensional
        case nil: break
        }
        satellites = location.satelliteCount
        let prefix = GPXPoint.locationExtensionPrefix
        var xml = ""
        func add(_ tag: String, _ value: Double?) {
            guard let value, value.isFinite else { return }
            xml += "<\(prefix):\(tag)>\(ShortestDecimal.string(value))</\(prefix):\(tag)>"
        }
        add("acc", location.horizontalAccuracy?.meters)
        add("vacc", location.verticalAccuracy?.meters)
        add("speed", location.speed?.metersPerSecond)
        add("sacc", location.speedAccuracy?.metersPerSecond)
        add("course", location.course?.degrees)
        add("cacc", location.courseAccuracy?.degrees)
        add("climb", location.climb?.metersPerSecond)
        add("hae", location.ellipsoidalAltitude?.meters)
        add("q", location.fixQuality.map { Double($0.rawValue) })
        if !xml.isEmpty { extensions = GPXExtensions(xml: xml) }
    }

    /// Moves this point to a processed fix (filtered, smoothed): position, time, speed and
    /// course from `location`, its elevation when it has one; every other field of the
    /// point, extensions included, stays as it was.
    public mutating func update(from location: Location) {
        coordinate = location.coordinate
        time = location.timestamp
        elevation = location.altitude ?? elevation
        speed = location.speed
        course = location.course
    }
}

extension Location {
    /// The fix a GPX point describes, or nil for a point without a time.
    ///
    /// Position, elevation (as `altitude`), time, `fix`, `sat` and GPX 1.0's `speed` and
    /// `course` come from GPX; the fields of LocationKit's extension (see
    /// ``GPXCodec/GPXPoint/init(location:)``) override them; the horizontal accuracy follows
    /// `accuracy` (``GPXAccuracyPolicy``).
    /// - Parameters:
    ///   - extensionPrefix: the prefix the file binds to `GPXPoint.locationExtensionNamespace`.
    /// - Complexity: O(n) in the length of the point's extension XML.
    public init?(gpxPoint point: GPXPoint, accuracy: GPXAccuracyPolicy = .default,
                 extensionPrefix: String = GPXPoint.locationExtensionPrefix) {
        guard let time = point.time else { return nil }
        var location = Location(coordinate: point.coordinate, timestamp: time, altitude: point.elevation,
                                speed: point.speed, course: point.course, satelliteCount: point.satellites)
        switch point.fix {
        case .none?: location.fixMode = .noFix
        case .twoDimensional?: location.fixMode = .twoDimensional
        case .threeDimensional?, .dgps?, .pps?: location.fixMode = .threeDimensional
        case nil: break
        }
        var recorded: Distance?
        if let xml = point.extensions?.xml {
            forEachExtensionValue(in: xml, prefix: extensionPrefix) { tag, value in
                switch tag {
                case "acc": recorded = .meters(value)
                case "vacc": location.verticalAccuracy = .meters(value)
                case "speed": location.speed = .metersPerSecond(value)
                case "sacc": location.speedAccuracy = .metersPerSecond(value)
                case "course": location.course = .degrees(value)
                case "cacc": location.courseAccuracy = .degrees(value)
                case "climb": location.climb = .metersPerSecond(value)
                case "hae": location.ellipsoidalAltitude = .meters(value)
                case "q": location.fixQuality = Int(exactly: value).flatMap(FixQuality.init(rawValue:))
                default: break
                }
            }
        }
        location.horizontalAccuracy = accuracy.horizontalAccuracy(recorded: recorded, hdop: point.hdop)
        self = location
    }
}

/// Calls `body` with each numeric `<prefix:tag>value</prefix:tag>` element of an
/// extension's XML; other content is skipped.
/// - Complexity: O(n) in the length of the XML, one pass over its UTF-8.
private func forEachExtensionValue(in xml: String, prefix: String, _ body: (String, Double) -> Void) {
    var xml = xml
    let open = Array("<\(prefix):".utf8)
    xml.withUTF8 { b in
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        var i = 0
        while i + open.count <= b.count {
            guard b[i] == 0x3C, b[i..<(i + open.count)].elementsEqual(open) else { i += 1; continue }
            var j = i + open.count
            let tagStart = j
            while j < b.count, b[j] != 0x3E { j += 1 } // ">"
            guard j < b.count else { return }
            let tagEnd = j
            j += 1
            i = j
            guard tagEnd > tagStart, b[tagEnd - 1] != 0x2F else { continue } // not `<lk:x/>`
            var valueStart = j
            while j < b.count, b[j] != 0x3C { j += 1 } // "<"
            var valueEnd = j
            while valueStart < valueEnd, isSpace(b[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, isSpace(b[valueEnd - 1]) { valueEnd -= 1 }
            let text = String(decoding: UnsafeBufferPointer(rebasing: b[valueStart..<valueEnd]), as: UTF8.self)
            if let value = Double(text) {
                body(String(decoding: UnsafeBufferPointer(rebasing: b[tagStart..<tagEnd]), as: UTF8.self), value)
            }
            i = j
        }
    }
}
