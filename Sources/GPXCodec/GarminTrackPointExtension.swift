import GeoBase
public import GeoCore
import XMLStreaming
import Platform

/// Garmin's TrackPointExtension (v1 and v2, www.garmin.com/xmlschemas/TrackPointExtension),
/// which fitness devices and apps write inside a point's `<extensions>`.
public struct GarminTrackPointExtension: Hashable, Sendable {
    /// Heart rate, beats per minute (`hr`; a fraction is cut off).
    public var heartRate: Int?
    /// Cadence, revolutions (or steps) per minute (`cad`; a fraction is cut off).
    public var cadence: Int?
    /// Air temperature, degrees Celsius (`atemp`).
    public var airTemperature: Double?
    /// Water temperature, degrees Celsius (`wtemp`).
    public var waterTemperature: Double?
    /// Depth below the surface (`depth`).
    public var depth: Distance?
    /// Speed over ground (`speed`, v2).
    public var speed: Speed?
    /// Course over ground, degrees from true north (`course`, v2).
    public var course: Bearing?

    /// The v2 namespace URI.
    public static let namespaceV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// The child elements this type reads, and the one rule for their text, which both the
    /// typed accessor and the reader's warnings (`GPXStreamReader.warnings`) use.
    enum Field {
        case hr, cad, atemp, wtemp, depth, speed, course

        /// The element's local name.
        var name: StaticString {
            switch self {
            case .hr: "hr"
            case .cad: "cad"
            case .atemp: "atemp"
            case .wtemp: "wtemp"
            case .depth: "depth"
            case .speed: "speed"
            case .course: "course"
            }
        }

        /// The field a local element name names, read from the bytes without allocating (the
        /// reader checks every point's extension): length and first byte pick the candidate,
        /// its name confirms it.
        init?(name: UnsafeBufferPointer<UInt8>) {
            let candidate: Field
            switch (name.count, name.first) {
            case (2, UInt8(ascii: "h")): candidate = .hr
            case (3, UInt8(ascii: "c")): candidate = .cad
            case (5, UInt8(ascii: "a")): candidate = .atemp
            case (5, UInt8(ascii: "w")): candidate = .wtemp
            case (5, UInt8(ascii: "d")): candidate = .depth
            case (5, UInt8(ascii: "s")): candidate = .speed
            case (6, UInt8(ascii: "c")): candidate = .course
            default: return nil
            }
            guard let bytes = name.baseAddress, memcmp(bytes, candidate.name.utf8Start, name.count) == 0 else { return nil }
            self = candidate
        }

        /// The value of `text`: a decimal number, and for `hr` and `cad` one in 0...255 (the
        /// schema's `xsd:unsignedByte`); nil otherwise, and the field is left out.
        func value(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            guard let base = text.baseAddress, let v = GPXNumber.double(base, text.count) else { return nil }
            switch self {
            case .hr, .cad: return (0...255).contains(v) ? v : nil
            case .atemp, .wtemp, .depth, .speed, .course: return v
            }
        }

        /// What the text should be, for a warning's message.
        var expected: String {
            switch self {
            case .hr, .cad: "a number in 0...255"
            case .atemp, .wtemp, .depth, .speed, .course: "a number"
            }
        }
    }

    public init(heartRate: Int? = nil, cadence: Int? = nil, airTemperature: Double? = nil, waterTemperature: Double? = nil,
                depth: Distance? = nil, speed: Speed? = nil, course: Bearing? = nil) {
        self.heartRate = heartRate
        self.cadence = cadence
        self.airTemperature = airTemperature
        self.waterTemperature = waterTemperature
        self.depth = depth
        self.speed = speed
        self.course = course
    }

    /// Reads the first `TrackPointExtension` element (any prefix, v1 or v2) in raw extension XML;
    /// nil when there is none or the XML is not well-formed.
    /// - Complexity: O(n) in the length of the XML.
    public init?(extensions: GPXExtensions) {
        // Wrapped in an element, the fragment is a document the scanner can read.
        var scanner = XMLScanner(source: MemorySource(string: "<x>" + extensions.xml + "</x>"))
        var value = GarminTrackPointExtension()
        var found = false, inside = 0
        var text = XMLByteBuffer()
        do {
            while true {
                let kind = try scanner.next()
                if kind == .endOfInput { break }
                if kind == .startTag {
                    let name = scanner.localNameRange
                    if !found, scanner.equals(name, "TrackPointExtension") {
                        found = true
                        inside = scanner.depth
                        if scanner.selfClosing { break }
                        continue
                    }
                    guard found, scanner.depth == inside + 1, !scanner.selfClosing,
                          let field = Field(name: UnsafeBufferPointer(start: scanner.buf + name.lowerBound, count: name.count)) else { continue }
                    text.reset()
                    while try scanner.next() != .endTag {
                        if scanner.kind == .text { try scanner.appendDecoded(scanner.tokenRange, to: &text) }
                    }
                    let number = field.value(text.bytes)
                    switch field {
                    // Both unsignedByte in the TrackPointExtension v2 schema; anything else is left out.
                    case .hr: value.heartRate = number.flatMap { (0...255).contains($0) ? Int($0) : nil }
                    case .cad: value.cadence = number.flatMap { (0...255).contains($0) ? Int($0) : nil }
                    case .atemp: value.airTemperature = number
                    case .wtemp: value.waterTemperature = number
                    case .depth: value.depth = number.map(Distance.init(meters:))
                    case .speed: value.speed = number.map(Speed.init(metersPerSecond:))
                    case .course: value.course = number.map(Bearing.init(degrees:))
                    }
                } else if kind == .endTag, found, scanner.depth < inside {
                    break
                }
            }
        } catch {
            return nil
        }
        guard found else { return nil }
        self = value
    }

    /// The extension as a self-contained v2 element (it declares its own namespace), ready to
    /// append to a point's `GPXExtensions.xml`.
    public var xml: String {
        var s = "<gpxtpx:TrackPointExtension xmlns:gpxtpx=\"\(Self.namespaceV2)\">"
        func add(_ name: String, _ v: String?) { if let v { s += "<gpxtpx:\(name)>\(v)</gpxtpx:\(name)>" } }
        // v2 schema order: atemp, wtemp, depth, hr, cad, speed, course, bearing.
        add("atemp", airTemperature.map { "\($0)" })
        add("wtemp", waterTemperature.map { "\($0)" })
        add("depth", depth.map { "\($0.meters)" })
        add("hr", heartRate.map(String.init))
        add("cad", cadence.map(String.init))
        add("speed", speed.map { "\($0.metersPerSecond)" })
        add("course", course.map { "\($0.degrees)" })
        return s + "</gpxtpx:TrackPointExtension>"
    }
}

extension GPXPoint {
    /// The Garmin TrackPointExtension in this point's extensions, if any.
    public var garminTrackPointExtension: GarminTrackPointExtension? {
        extensions.flatMap(GarminTrackPointExtension.init(extensions:))
    }
}
