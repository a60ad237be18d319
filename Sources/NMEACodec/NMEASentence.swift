/// The two-character talker of a sentence address (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`,
/// `GQ`, `QZ`, `IN`, …), or `P` for proprietary sentences (NMEA 0183 v4.11 §6.1.4).
public struct NMEATalker: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The two ASCII bytes, first in the high byte; a proprietary talker is `P` and 0.
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A talker from its two letters (only the first two characters are used).
    public init(_ text: String) {
        let u = Array(text.utf8)
        rawValue = UInt16(u.first ?? 0) << 8 | UInt16(u.count > 1 ? u[1] : 0)
    }

    // Computed from literals (not `static let`), so hot-path comparisons need no lazy-global check.
    public static var proprietary: NMEATalker { NMEATalker(rawValue: 0x5000) } // "P"
    public static var gps: NMEATalker { NMEATalker(rawValue: 0x4750) } // "GP"
    public static var multiGNSS: NMEATalker { NMEATalker(rawValue: 0x474E) } // "GN"
    public static var glonass: NMEATalker { NMEATalker(rawValue: 0x474C) } // "GL"
    public static var galileo: NMEATalker { NMEATalker(rawValue: 0x4741) } // "GA"
    public static var beidou: NMEATalker { NMEATalker(rawValue: 0x4742) } // "GB"
    public static var beidouLegacy: NMEATalker { NMEATalker(rawValue: 0x4244) } // "BD"
    public static var qzss: NMEATalker { NMEATalker(rawValue: 0x4751) } // "GQ"
    public static var qzssLegacy: NMEATalker { NMEATalker(rawValue: 0x515A) } // "QZ"
    public static var navic: NMEATalker { NMEATalker(rawValue: 0x4749) } // "GI"

    /// The satellite system the talker implies, when it implies one (`GN` does not).
    public var system: GNSSSystem? {
        switch self {
        case .gps: .gps
        case .glonass: .glonass
        case .galileo: .galileo
        case .beidou, .beidouLegacy: .beidou
        case .qzss, .qzssLegacy, NMEATalker(rawValue: 0x5051): .qzss // PQ: Quectel
        case .navic: .navic
        default: nil
        }
    }

    public static func < (a: NMEATalker, b: NMEATalker) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        let a = UInt8(rawValue >> 8), b = UInt8(rawValue & 0xFF)
        return b == 0 ? String(UnicodeScalar(a)) : String(UnicodeScalar(a)) + String(UnicodeScalar(b))
    }
}

/// A satellite constellation, numbered as NMEA 0183 v4.11 numbers GSA/GSV system ids.
public enum GNSSSystem: Int, Hashable, Sendable, Codable, CaseIterable {
    case gps = 1, glonass = 2, galileo = 3, beidou = 4, qzss = 5, navic = 6
}

/// The sentence formatter (`GGA`, `RMC`, …; for proprietary sentences the manufacturer code
/// and type, e.g. `GRME`), packed into an integer so dispatch allocates nothing.
public struct NMEASentenceType: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Up to eight ASCII bytes, first in the high byte, left aligned.
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(_ text: String) {
        var v: UInt64 = 0
        var n = 0
        for b in text.utf8.prefix(8) { v = v << 8 | UInt64(b); n += 1 }
        rawValue = n == 0 ? 0 : v << (8 * UInt64(8 - n))
    }

    init(bytes: UnsafeRawBufferPointer) {
        var v: UInt64 = 0
        let n = min(8, bytes.count)
        for i in 0..<n { v = v << 8 | UInt64(bytes[i]) }
        rawValue = n == 0 ? 0 : v << (8 * UInt64(8 - n))
    }

    // Computed from literals (not `static let`), so hot-path comparisons need no lazy-global check.
    public static var gga: NMEASentenceType { NMEASentenceType(rawValue: 0x4747410000000000) } // "GGA"
    public static var rmc: NMEASentenceType { NMEASentenceType(rawValue: 0x524D430000000000) } // "RMC"
    public static var gll: NMEASentenceType { NMEASentenceType(rawValue: 0x474C4C0000000000) } // "GLL"
    public static var gsa: NMEASentenceType { NMEASentenceType(rawValue: 0x4753410000000000) } // "GSA"
    public static var gsv: NMEASentenceType { NMEASentenceType(rawValue: 0x4753560000000000) } // "GSV"
    public static var vtg: NMEASentenceType { NMEASentenceType(rawValue: 0x5654470000000000) } // "VTG"
    public static var gns: NMEASentenceType { NMEASentenceType(rawValue: 0x474E530000000000) } // "GNS"
    public static var gst: NMEASentenceType { NMEASentenceType(rawValue: 0x4753540000000000) } // "GST"
    public static var zda: NMEASentenceType { NMEASentenceType(rawValue: 0x5A44410000000000) } // "ZDA"
    public static var hdt: NMEASentenceType { NMEASentenceType(rawValue: 0x4844540000000000) } // "HDT"
    public static var gbs: NMEASentenceType { NMEASentenceType(rawValue: 0x4742530000000000) } // "GBS"
    public static var txt: NMEASentenceType { NMEASentenceType(rawValue: 0x5458540000000000) } // "TXT"

    public static func < (a: NMEASentenceType, b: NMEASentenceType) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        var s = ""
        var v = rawValue
        for _ in 0..<8 {
            let b = UInt8(v >> 56)
            if b != 0 { s.unicodeScalars.append(UnicodeScalar(b)) }
            v <<= 8
        }
        return s
    }
}

/// An address split into talker and type. `$PGRME` is talker `P`, type `GRME`.
public struct NMEAAddress: Hashable, Sendable, CustomStringConvertible {
    public var talker: NMEATalker
    public var type: NMEASentenceType

    public init(talker: NMEATalker, type: NMEASentenceType) {
        self.talker = talker
        self.type = type
    }

    /// Splits address field bytes; nil when shorter than 2 characters or not alphanumeric.
    init?(bytes f: UnsafeRawBufferPointer) {
        guard f.count >= 2 else { return nil }
        for b in f {
            guard (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x20 else { return nil }
        }
        let knownType = f.count == 5
            && NMEASentence.minimumFields(NMEASentenceType(bytes: UnsafeRawBufferPointer(rebasing: f[2...]))) != .max
        if f[0] == UInt8(ascii: "P") && !knownType {
            // Proprietary: `P` + manufacturer + type. A 5-character `P?xxx` whose last three
            // letters are a standard type (Quectel's `PQGSV`, `PQGSA`) is read as talker and
            // type, as gpsd does.
            talker = .proprietary
            type = NMEASentenceType(bytes: UnsafeRawBufferPointer(rebasing: f[1...]))
        } else if f.count == 5 || f.count == 3 && f[0] != UInt8(ascii: "P") {
            if f.count == 5 {
                talker = NMEATalker(rawValue: UInt16(f[0]) << 8 | UInt16(f[1]))
                type = NMEASentenceType(bytes: UnsafeRawBufferPointer(rebasing: f[2...]))
            } else {
                // Skytraq `$STI` and similar: no talker.
                talker = NMEATalker(rawValue: 0)
                type = NMEASentenceType(bytes: f)
            }
        } else {
            talker = NMEATalker(rawValue: UInt16(f[0]) << 8 | UInt16(f[1]))
            type = NMEASentenceType(bytes: UnsafeRawBufferPointer(rebasing: f[2...]))
        }
    }

    public var description: String { talker == .proprietary ? "P\(type)" : "\(talker)\(type)" }
}

/// A list of up to 16 satellite ids, stored inline (no allocation).
public struct NMEASatelliteIDs: Hashable, Sendable, RandomAccessCollection {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public private(set) var count = 0
    /// The most ids one list holds; further ids in a sentence are dropped.
    public static let capacity = 16

    public init() {}

    public init(_ ids: some Sequence<Int>) {
        for id in ids { append(id) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> Int {
        precondition(i >= 0 && i < count, "Broken contract: satellite id index \(i) out of 0..<\(count)")
        let w: UInt64
        switch i >> 2 {
        case 0: w = words.0
        case 1: w = words.1
        case 2: w = words.2
        default: w = words.3
        }
        return Int((w >> UInt64((i & 3) * 16)) & 0xFFFF)
    }

    /// Appends an id in 0…65535; ignored when full.
    public mutating func append(_ id: Int) {
        guard count < Self.capacity, id >= 0, id <= 0xFFFF else { return }
        let shifted = UInt64(id) << UInt64((count & 3) * 16)
        switch count >> 2 {
        case 0: words.0 |= shifted
        case 1: words.1 |= shifted
        case 2: words.2 |= shifted
        default: words.3 |= shifted
        }
        count += 1
    }

    public static func == (a: NMEASatelliteIDs, b: NMEASatelliteIDs) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into h: inout Hasher) {
        h.combine(count)
        h.combine(words.0); h.combine(words.1); h.combine(words.2); h.combine(words.3)
    }
}

/// One satellite as a GSV sentence describes it.
public struct NMEASatelliteInView: Hashable, Sendable {
    /// The id as sent (GPS 1–32, SBAS 33–64, GLONASS 65–96, …, or 1–n within a 4.11 system).
    public var id: Int
    /// Elevation in degrees, 0–90.
    public var elevation: Double?
    /// Azimuth in degrees from true north, 0–359.
    public var azimuth: Double?
    /// Carrier-to-noise density in dB-Hz; nil when not tracked.
    public var snr: Double?

    public init(id: Int, elevation: Double? = nil, azimuth: Double? = nil, snr: Double? = nil) {
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
    }
}

/// A parsed NMEA 0183 sentence: one case per supported type, `raw` for the rest.
///
/// Field meanings follow NMEA 0183 v4.11 and gpsd's `NMEA.html` ("NMEA Revealed"). Empty or
/// malformed fields are `nil`; the sentence still parses, so a bad field costs that field.
public enum NMEASentence: Hashable, Sendable {
    case gga(GGA)
    case rmc(RMC)
    case gll(GLL)
    case gsa(GSA)
    case gsv(GSV)
    case vtg(VTG)
    case gns(GNS)
    case gst(GST)
    case zda(ZDA)
    case hdt(HDT)
    case gbs(GBS)
    case txt(TXT)
    /// Proprietary (`$P…`) and unknown sentences, kept as text fields.
    case raw(Raw)

    /// The fix data GGA and GNS both carry (GNS is GGA's multi-constellation counterpart,
    /// NMEA 0183 3.0 on): time, position, satellites used, HDOP, altitude, geoid separation and
    /// differential corrections.
    public struct FixData: Hashable, Sendable {
        public var time: NMEATimeOfDay?
        /// Degrees; nil, as `longitude`, unless both are there.
        public var latitude: Double?
        public var longitude: Double?
        public var satellitesUsed: Int?
        public var hdop: Double?
        /// Antenna altitude above mean sea level (the geoid), metres.
        public var altitudeMSL: Double?
        /// Geoid height above the WGS84 ellipsoid, metres.
        public var geoidSeparation: Double?
        /// Age of differential corrections, seconds.
        public var dgpsAge: Double?
        public var dgpsStation: Int?

        /// The fields as parsed; a position only when both its latitude and longitude are.
        init(time: NMEATimeOfDay?, latitude: Double?, longitude: Double?, satellitesUsed: Int?, hdop: Double?,
             altitudeMSL: Double?, geoidSeparation: Double?, dgpsAge: Double?, dgpsStation: Int?) {
            let both = latitude != nil && longitude != nil
            self.time = time
            self.latitude = both ? latitude : nil
            self.longitude = both ? longitude : nil
            self.satellitesUsed = satellitesUsed
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
            self.dgpsAge = dgpsAge
            self.dgpsStation = dgpsStation
        }
    }

    /// GGA: time, position and fix data.
    public struct GGA: Hashable, Sendable {
        public var talker: NMEATalker
        public var fix: FixData
        /// GGA quality indicator 0–8 (`FixQuality` raw values).
        public var quality: Int?
    }

    /// RMC: recommended minimum data.
    public struct RMC: Hashable, Sendable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        /// `A` valid, `V` warning, `D` differential (some receivers).
        public var status: UInt8?
        public var latitude: Double?
        public var longitude: Double?
        public var speedKnots: Double?
        /// Course over ground, degrees true.
        public var track: Double?
        public var date: NMEADate?
        /// Magnetic variation, degrees, east positive.
        public var magneticVariation: Double?
        /// FAA mode indicator (NMEA 2.3+): A D E F M N P R S.
        public var faaMode: UInt8?
        /// Navigational status (NMEA 4.1+).
        public var navigationStatus: UInt8?
    }

    /// GLL: geographic position.
    public struct GLL: Hashable, Sendable {
        public var talker: NMEATalker
        public var latitude: Double?
        public var longitude: Double?
        public var time: NMEATimeOfDay?
        public var status: UInt8?
        public var faaMode: UInt8?
    }

    /// GSA: DOP and active satellites.
    public struct GSA: Hashable, Sendable {
        public var talker: NMEATalker
        /// `A` automatic or `M` manual 2D/3D selection.
        public var selectionMode: UInt8?
        /// 1 no fix, 2 2D, 3 3D.
        public var fixType: Int?
        public var satelliteIDs: NMEASatelliteIDs
        public var pdop: Double?
        public var hdop: Double?
        public var vdop: Double?
        /// NMEA 4.11 GNSS system id (1 GPS … 6 NavIC).
        public var systemID: Int?
    }

    /// GSV: satellites in view, up to four per sentence.
    public struct GSV: Hashable, Sendable {
        public var talker: NMEATalker
        public var totalMessages: Int?
        public var messageNumber: Int?
        public var satellitesInView: Int?
        public var satellites: [NMEASatelliteInView] {
            var a: [NMEASatelliteInView] = []
            for i in 0..<count { a.append(self[i]) }
            return a
        }
        /// NMEA 4.11 signal id (1 = L1 C/A for GPS, …).
        public var signalID: Int?
        var s0: NMEASatelliteInView?, s1: NMEASatelliteInView?, s2: NMEASatelliteInView?, s3: NMEASatelliteInView?
        /// How many satellites this sentence carries (0–4).
        public private(set) var count = 0

        /// The `i`-th satellite of this sentence, `0 ..< count`.
        public subscript(i: Int) -> NMEASatelliteInView {
            let s: NMEASatelliteInView?
            switch i {
            case 0: s = s0
            case 1: s = s1
            case 2: s = s2
            default: s = s3
            }
            guard let s else { fatalError("Broken contract: GSV satellite index \(i) out of 0..<\(count)") }
            return s
        }

        mutating func append(_ s: NMEASatelliteInView) {
            switch count {
            case 0: s0 = s
            case 1: s1 = s
            case 2: s2 = s
            case 3: s3 = s
            default: return
            }
            count += 1
        }
    }

    /// VTG: track made good and ground speed.
    public struct VTG: Hashable, Sendable {
        public var talker: NMEATalker
        public var trackTrue: Double?
        public var trackMagnetic: Double?
        public var speedKnots: Double?
        public var speedKilometersPerHour: Double?
        public var faaMode: UInt8?
    }

    /// GNS: multi-constellation fix data.
    public struct GNS: Hashable, Sendable {
        public var talker: NMEATalker
        public var fix: FixData
        /// Mode indicator characters, one per system (GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC).
        public var modeIndicators: NMEASatelliteIDs
        public var navigationStatus: UInt8?
    }

    /// GST: pseudorange error statistics (one-sigma, metres).
    public struct GST: Hashable, Sendable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        public var rangeRMS: Double?
        public var semiMajor: Double?
        public var semiMinor: Double?
        /// Orientation of the semi-major axis, degrees from true north.
        public var orientation: Double?
        public var latitudeSigma: Double?
        public var longitudeSigma: Double?
        public var altitudeSigma: Double?
    }

    /// ZDA: time and date.
    public struct ZDA: Hashable, Sendable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        public var date: NMEADate?
        public var zoneHours: Int?
        public var zoneMinutes: Int?
    }

    /// HDT: true heading.
    public struct HDT: Hashable, Sendable {
        public var talker: NMEATalker
        /// Heading, degrees true.
        public var heading: Double?
    }

    /// GBS: satellite fault detection (expected errors, metres).
    public struct GBS: Hashable, Sendable {
        public var talker: NMEATalker
        public var time: NMEATimeOfDay?
        public var latitudeError: Double?
        public var longitudeError: Double?
        public var altitudeError: Double?
        public var failedSatellite: Int?
        public var probability: Double?
        public var bias: Double?
        public var biasStandardDeviation: Double?
        public var systemID: Int?
        public var signalID: Int?
    }

    /// TXT: text transmission.
    public struct TXT: Hashable, Sendable {
        public var talker: NMEATalker
        public var totalMessages: Int?
        public var messageNumber: Int?
        /// 00 error, 01 warning, 02 notice, 07 user (u-blox).
        public var identifier: Int?
        public var text: String
    }

    /// Any other sentence, its fields as text.
    public struct Raw: Hashable, Sendable {
        public var address: NMEAAddress
        /// The fields after the address.
        public var fields: [String]
    }
}

extension NMEASentence {
    /// The talker and type of the sentence.
    public var address: NMEAAddress {
        switch self {
        case .gga(let s): NMEAAddress(talker: s.talker, type: .gga)
        case .rmc(let s): NMEAAddress(talker: s.talker, type: .rmc)
        case .gll(let s): NMEAAddress(talker: s.talker, type: .gll)
        case .gsa(let s): NMEAAddress(talker: s.talker, type: .gsa)
        case .gsv(let s): NMEAAddress(talker: s.talker, type: .gsv)
        case .vtg(let s): NMEAAddress(talker: s.talker, type: .vtg)
        case .gns(let s): NMEAAddress(talker: s.talker, type: .gns)
        case .gst(let s): NMEAAddress(talker: s.talker, type: .gst)
        case .zda(let s): NMEAAddress(talker: s.talker, type: .zda)
        case .hdt(let s): NMEAAddress(talker: s.talker, type: .hdt)
        case .gbs(let s): NMEAAddress(talker: s.talker, type: .gbs)
        case .txt(let s): NMEAAddress(talker: s.talker, type: .txt)
        case .raw(let r): r.address
        }
    }

    /// Whether the type has a typed parser here (so a `.raw` of it had a wrong field count).
    public static func isStandardType(_ type: NMEASentenceType) -> Bool { minimumFields(type) != .max }
}
