import Platform
import GeoBase
public import GeoCore

/// One object of gpsd's JSON protocol (gpsd_json(5), protocol 3.x): the reports a client
/// reads from gpsd and the `WATCH` it sends.
///
/// Field names are gpsd's. Error figures (`eph`, `epx`, `epy`, `epv`, `eps`, `epd`, `epc`) are
/// gpsd's 95 % confidence values; `GPSDMessage.TPV.location` converts them to the 68 %
/// accuracies of `Location` with `NMEAErrorModel` (horizontal radius ÷ 2.4477, one-dimensional
/// errors ÷ 1.96), and `TPV(_:device:)` converts back.
public enum GPSDMessage: Hashable, Sendable {
    case version(Version)
    case devices(Devices)
    case device(Device)
    case watch(Watch)
    case tpv(TPV)
    case sky(Sky)
    case gst(GST)
    case att(ATT)
    case error(ErrorReport)
    /// A class this codec does not model (`PPS`, `TOFF`, `AIS`, …), kept by name.
    case other(className: String)

    /// `{"class":"VERSION"}`: the daemon's release and protocol version.
    public struct Version: Hashable, Sendable, Codable {
        public var release: String
        public var rev: String?
        public var protoMajor: Int
        public var protoMinor: Int
        enum CodingKeys: String, CodingKey { case release, rev, protoMajor = "proto_major", protoMinor = "proto_minor" }
        public init(release: String, rev: String? = nil, protoMajor: Int, protoMinor: Int) {
            self.release = release; self.rev = rev; self.protoMajor = protoMajor; self.protoMinor = protoMinor
        }
    }

    /// `{"class":"DEVICE"}`: one receiver gpsd reads.
    public struct Device: Hashable, Sendable, Codable {
        public var path: String?
        public var driver: String?
        public var activated: String?
        public var native: Int?
        public var bps: Int?
        public var parity: String?
        public var stopbits: Int?
        /// Cycle time, seconds.
        public var cycle: Double?
        /// gpsd sends `"activated":0` when a device closes; that is `deactivated`.
        public var deactivated: Bool
        public init(path: String? = nil, driver: String? = nil, activated: String? = nil, native: Int? = nil,
                    bps: Int? = nil, parity: String? = nil, stopbits: Int? = nil, cycle: Double? = nil,
                    deactivated: Bool = false) {
            self.path = path; self.driver = driver; self.activated = activated; self.native = native
            self.bps = bps; self.parity = parity; self.stopbits = stopbits; self.cycle = cycle
            self.deactivated = deactivated
        }

        enum CodingKeys: String, CodingKey { case path, driver, activated, native, bps, parity, stopbits, cycle }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            path = try c.decodeIfPresent(String.self, forKey: .path)
            driver = try c.decodeIfPresent(String.self, forKey: .driver)
            if let number = try? c.decodeIfPresent(Double.self, forKey: .activated) {
                activated = nil
                deactivated = number == 0
            } else {
                activated = try c.decodeIfPresent(String.self, forKey: .activated)
                deactivated = false
            }
            native = try c.decodeIfPresent(Int.self, forKey: .native)
            bps = try c.decodeIfPresent(Int.self, forKey: .bps)
            parity = try c.decodeIfPresent(String.self, forKey: .parity)
            stopbits = try c.decodeIfPresent(Int.self, forKey: .stopbits)
            cycle = try c.decodeIfPresent(Double.self, forKey: .cycle)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(path, forKey: .path)
            try c.encodeIfPresent(driver, forKey: .driver)
            if deactivated { try c.encode(0, forKey: .activated) } else { try c.encodeIfPresent(activated, forKey: .activated) }
            try c.encodeIfPresent(native, forKey: .native)
            try c.encodeIfPresent(bps, forKey: .bps)
            try c.encodeIfPresent(parity, forKey: .parity)
            try c.encodeIfPresent(stopbits, forKey: .stopbits)
            try c.encodeIfPresent(cycle, forKey: .cycle)
        }
    }

    /// `{"class":"DEVICES"}`: every receiver gpsd knows.
    public struct Devices: Hashable, Sendable, Codable {
        public var devices: [Device]
        public init(devices: [Device]) { self.devices = devices }
    }

    /// `?WATCH={…}` and its echo: what the client wants streamed.
    public struct Watch: Hashable, Sendable, Codable {
        public var enable: Bool?
        public var json: Bool?
        public var nmea: Bool?
        public var raw: Int?
        public var scaled: Bool?
        public var split24: Bool?
        public var pps: Bool?
        public var device: String?
        public init(enable: Bool? = true, json: Bool? = true, nmea: Bool? = nil, raw: Int? = nil, scaled: Bool? = nil,
                    split24: Bool? = nil, pps: Bool? = nil, device: String? = nil) {
            self.enable = enable; self.json = json; self.nmea = nmea; self.raw = raw; self.scaled = scaled
            self.split24 = split24; self.pps = pps; self.device = device
        }

        /// `{"enable":false}`: stop streaming reports to this client (gpsd keeps the device
        /// open while another client watches, or with `-n`).
        public static var off: Watch { Watch(enable: false, json: nil) }
    }

    /// `{"class":"TPV"}`: time, position, velocity. Errors are 95 % figures, metres (m/s, degrees).
    public struct TPV: Hashable, Sendable, Codable {
        public var device: String?
        /// 0 unknown, 1 no fix, 2 2D, 3 3D.
        public var mode: Int
        public var status: Int?
        /// ISO 8601 UTC.
        public var time: String?
        public var ept: Double?
        public var lat: Double?
        public var lon: Double?
        public var altHAE: Double?
        public var altMSL: Double?
        public var alt: Double?
        public var epx: Double?
        public var epy: Double?
        public var epv: Double?
        public var track: Double?
        public var magtrack: Double?
        public var magvar: Double?
        public var speed: Double?
        public var climb: Double?
        public var epd: Double?
        public var eps: Double?
        public var epc: Double?
        public var geoidSep: Double?
        public var eph: Double?
        public var sep: Double?
        public var dgpsAge: Double?
        public var dgpsSta: Int?

        public init(mode: Int) { self.mode = mode }
    }

    /// One satellite of a `SKY`.
    public struct Satellite: Hashable, Sendable, Codable {
        public var PRN: Int
        public var gnssid: Int?
        public var svid: Int?
        public var sigid: Int?
        public var el: Double?
        public var az: Double?
        public var ss: Double?
        public var used: Bool
        public var health: Int?
        public init(PRN: Int, gnssid: Int? = nil, svid: Int? = nil, sigid: Int? = nil, el: Double? = nil,
                    az: Double? = nil, ss: Double? = nil, used: Bool, health: Int? = nil) {
            self.PRN = PRN; self.gnssid = gnssid; self.svid = svid; self.sigid = sigid; self.el = el
            self.az = az; self.ss = ss; self.used = used; self.health = health
        }
    }

    /// `{"class":"SKY"}`: satellites and dilutions of precision.
    public struct Sky: Hashable, Sendable, Codable {
        public var device: String?
        public var time: String?
        public var gdop: Double?, hdop: Double?, pdop: Double?, tdop: Double?, vdop: Double?, xdop: Double?, ydop: Double?
        public var nSat: Int?
        public var uSat: Int?
        public var satellites: [Satellite]?
        public init() {}
    }

    /// `{"class":"GST"}`: pseudorange noise statistics, one-sigma metres.
    public struct GST: Hashable, Sendable, Codable {
        public var device: String?
        public var time: String?
        public var rms: Double?, major: Double?, minor: Double?, orient: Double?, lat: Double?, lon: Double?, alt: Double?
        public init() {}
    }

    /// `{"class":"ATT"}`: attitude (heading from HDT and similar), degrees.
    public struct ATT: Hashable, Sendable, Codable {
        public var device: String?
        public var time: String?
        public var heading: Double?, mheading: Double?, pitch: Double?, roll: Double?, yaw: Double?, dip: Double?
        public var depth: Double?, temp: Double?
        /// `mag_st`: the magnetometer status character (gpsd_json(5); for TNT Revolution
        /// compasses C calibration alarm, L low alarm, M low warning, N normal, O high
        /// warning, P high alarm, V voltage alarm).
        public var magStatus: String?
        enum CodingKeys: String, CodingKey {
            case device, time, heading, mheading, pitch, roll, yaw, dip, depth, temp, magStatus = "mag_st"
        }
        public init() {}
    }

    /// `{"class":"ERROR"}`: a request gpsd refused.
    public struct ErrorReport: Hashable, Sendable, Codable {
        public var message: String
        public init(message: String) { self.message = message }
    }

    private struct ClassProbe: Decodable { var `class`: String }

    /// Decodes one JSON object (one line of gpsd output).
    /// - Throws: `NMEAError(.invalidJSON)` when the text is not an object of a known shape.
    public init(json: String) throws(NMEAError) {
        let data = Data(json.utf8)
        let decoder = JSONDecoder()
        do {
            let name = try decoder.decode(ClassProbe.self, from: data).class
            switch name {
            case "VERSION": self = .version(try decoder.decode(Version.self, from: data))
            case "DEVICES": self = .devices(try decoder.decode(Devices.self, from: data))
            case "DEVICE": self = .device(try decoder.decode(Device.self, from: data))
            case "WATCH": self = .watch(try decoder.decode(Watch.self, from: data))
            case "TPV": self = .tpv(try decoder.decode(TPV.self, from: data))
            case "SKY": self = .sky(try decoder.decode(Sky.self, from: data))
            case "GST": self = .gst(try decoder.decode(GST.self, from: data))
            case "ATT": self = .att(try decoder.decode(ATT.self, from: data))
            case "ERROR": self = .error(try decoder.decode(ErrorReport.self, from: data))
            default: self = .other(className: name)
            }
        } catch {
            throw NMEAError(.invalidJSON, "not a gpsd JSON object: \(error)")
        }
    }

    /// The object as one line of JSON with its `class` member (keys sorted, no newline).
    /// `WATCH` is written as the object a client sends after `?WATCH=`.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func encode<T: Encodable>(_ className: String, _ value: T) -> String {
            // Encoding these plain structs cannot fail; an empty object is the fallback.
            guard let data = try? encoder.encode(value), var text = String(data: data, encoding: .utf8) else {
                return "{\"class\":\"\(className)\"}"
            }
            text.removeFirst()
            return "{\"class\":\"\(className)\"" + (text == "}" ? "}" : "," + text)
        }
        switch self {
        case .version(let v): return encode("VERSION", v)
        case .devices(let v): return encode("DEVICES", v)
        case .device(let v): return encode("DEVICE", v)
        case .watch(let v): return encode("WATCH", v)
        case .tpv(let v): return encode("TPV", v)
        case .sky(let v): return encode("SKY", v)
        case .gst(let v): return encode("GST", v)
        case .att(let v): return encode("ATT", v)
        case .error(let v): return encode("ERROR", v)
        case .other(let name):
            let quoted = (try? encoder.encode(name)).flatMap { String(data: $0, encoding: .utf8) } ?? "\"\""
            return "{\"class\":" + quoted + "}"
        }
    }

    /// `?DEVICE={"cycle":…}\n`: asks gpsd to set its (only) receiver's reporting cycle,
    /// seconds (gpsd_json(5)); gpsd answers with the device's `DEVICE` report, or an `ERROR`
    /// when the driver cannot switch rates. A cycle that is not finite and positive is sent
    /// as 1 s.
    public static func deviceCycleCommand(_ seconds: Double) -> String {
        let cycle = seconds.isFinite && seconds > 0 ? seconds : 1
        return "?DEVICE={\"cycle\":\(cycle)}\n"
    }

    /// The `?WATCH={"enable":true,"json":true}` command a client sends to start streaming
    /// (`Watch.off` to stop).
    public static func watchCommand(_ watch: Watch = Watch()) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(watch)).flatMap { String(data: $0, encoding: .utf8) } ?? "{\"enable\":true,\"json\":true}"
        return "?WATCH=" + body + "\n"
    }
}

extension GPSDMessage.TPV {
    /// The report as a `Location` (nil without a 2D/3D fix, a time and a position).
    ///
    /// Horizontal accuracy: `eph / 2.4477` (95 % circle → per-axis sigma), else from `epx` and
    /// `epy` as `√((epx² + epy²) / 2) / 1.96`. Vertical: `epv / 1.96`; speed: `eps / 1.96`;
    /// course: `epd / 1.96` degrees. Altitude is `altMSL` (else gpsd's legacy `alt`).
    public var location: Location? {
        guard mode >= 2, let lat, let lon, let time, let date = ISO8601Time.date(from: time),
              let coordinate = try? Coordinate(latitude: lat, longitude: lon)
        else { return nil }
        var horizontal: Distance?
        if let eph {
            horizontal = .meters(eph / NMEAErrorModel.horizontal95To68)
        } else if let epx, let epy {
            horizontal = .meters(((epx * epx + epy * epy) / 2).squareRoot() / NMEAErrorModel.vertical95To68)
        }
        return Location(
            coordinate: coordinate,
            timestamp: date,
            altitude: mode == 3 ? (altMSL ?? alt).map(Distance.meters) : nil,
            ellipsoidalAltitude: mode == 3 ? altHAE.map(Distance.meters) : nil,
            horizontalAccuracy: horizontal,
            verticalAccuracy: mode == 3 ? epv.map { .meters($0 / NMEAErrorModel.vertical95To68) } : nil,
            speed: speed.map(Speed.metersPerSecond),
            speedAccuracy: eps.map { .metersPerSecond($0 / NMEAErrorModel.vertical95To68) },
            course: track.map(Bearing.degrees),
            courseAccuracy: epd.map { .degrees($0 / NMEAErrorModel.vertical95To68) },
            climb: climb.map(Speed.metersPerSecond),
            fixMode: FixMode(rawValue: mode),
            fixQuality: nil,
            satelliteCount: nil
        )
    }

    /// A TPV for a decoded fix, with gpsd's field names and 95 % errors.
    public init(_ fix: NMEAFix, device: String? = nil) {
        self.init(mode: fix.mode?.rawValue ?? 0)
        self.device = device
        time = fix.isoTime
        lat = fix.latitude
        lon = fix.longitude
        altMSL = fix.altitudeMSL
        altHAE = fix.altitudeHAE
        geoidSep = fix.geoidSeparation
        speed = fix.speed
        track = fix.track
        climb = fix.climb
        magvar = fix.magneticVariation
        eph = fix.eph
        epv = fix.epv
        if let q = fix.quality, q != .gps, q != .invalid { status = q.rawValue }
    }
}

extension GPSDMessage.Sky {
    /// A SKY for a decoded fix's satellites.
    public init(_ sky: SatelliteSky, device: String? = nil) {
        self.init()
        self.device = device
        hdop = sky.hdop
        pdop = sky.pdop
        vdop = sky.vdop
        uSat = sky.satellitesUsed
        nSat = sky.satellites.isEmpty ? nil : sky.satellites.count
        satellites = sky.satellites.isEmpty ? nil : sky.satellites.map {
            GPSDMessage.Satellite(PRN: $0.id, gnssid: $0.system.map(GPSDMessage.ubloxGNSSID), svid: $0.id,
                                  sigid: $0.signalID, el: $0.elevation, az: $0.azimuth, ss: $0.snr, used: $0.used)
        }
    }
}

extension GPSDMessage {
    /// gpsd's `gnssid` numbering (u-blox): 0 GPS, 2 Galileo, 3 BeiDou, 5 QZSS, 6 GLONASS, 7 NavIC.
    static func ubloxGNSSID(_ s: GNSSSystem) -> Int {
        switch s {
        case .gps: 0
        case .galileo: 2
        case .beidou: 3
        case .qzss: 5
        case .glonass: 6
        case .navic: 7
        }
    }
}
