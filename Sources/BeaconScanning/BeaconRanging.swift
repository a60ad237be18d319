public import GeoCore
public import Platform
public import GeoBase

/// One received advertisement: what a scanner reports (BlueZ's `Device1` properties, a
/// replay file's line).
public struct BeaconSighting: Hashable, Sendable {
    /// When it was received.
    public var timestamp: Date
    /// The advertiser's Bluetooth address, e.g. "C4:7C:8D:6A:3E:01"; it ties an Eddystone TLM
    /// frame to the beacon's identifying frame.
    public var address: String
    /// Received signal strength, dBm.
    public var rssi: Int
    /// The beacon frame.
    public var advertisement: BeaconAdvertisement

    public init(timestamp: Date, address: String, rssi: Int, advertisement: BeaconAdvertisement) {
        self.timestamp = timestamp
        self.address = address
        self.rssi = rssi
        self.advertisement = advertisement
    }
}

/// How near a beacon is, Core Location's `CLProximity`.
public enum BeaconProximity: String, Hashable, Sendable {
    /// Within ``BeaconRanger/Configuration/immediateDistance`` (0.5 m by default).
    case immediate
    /// Within ``BeaconRanger/Configuration/nearDistance`` (3 m by default).
    case near
    /// Farther.
    case far
    /// Not heard recently, or no usable signal.
    case unknown
}

/// A beacon as ranging reports it, Core Location's `CLBeacon`.
public struct RangedBeacon: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// The Bluetooth address it was last heard from.
    public var address: String
    /// The smoothed signal strength, dBm; nil when the beacon has not been heard within the
    /// smoothing window.
    public var rssi: Double?
    /// The distance estimated from ``rssi`` and the beacon's power at 1 m (`CLBeacon.accuracy`,
    /// metres); nil when unknown.
    public var distance: Distance?
    public var proximity: BeaconProximity
    /// When it was last heard.
    public var lastSeen: Date
    /// The beacon's latest Eddystone-TLM telemetry from the same address, if any.
    public var telemetry: EddystoneTelemetry?
    /// The beacon's latest Eddystone-URL from the same address, if any.
    public var url: String?
}

/// Ranging: per beacon, a smoothed RSSI, a distance estimate and a proximity, from the
/// sightings fed to it. Time comes from the sightings and the `now` the caller passes.
///
/// The RSSI is smoothed as the Android Beacon Library's `RunningAverageRssiFilter` does
/// (AltBeacon, android-beacon-library): the mean of the sightings within
/// ``Configuration/window`` after dropping the highest and lowest 10 %. The distance follows
/// the log-distance path-loss model, d = 10^((P₁ₘ − RSSI) / (10 n)) metres, with the beacon's
/// calibrated power at 1 m P₁ₘ and the path-loss exponent n (2 in free space; 2.5–4 indoors).
/// A beacon not heard within the window has proximity unknown; after ``Configuration/expiry``
/// it is no longer reported.
public struct BeaconRanger: Sendable {
    /// The ranging intervals a user may give, seconds between reports: 1 ms through an hour
    /// (so that a live scan's duration over it, up to 10⁹ s, is a count of reports that fits an `Int`).
    public static let intervals = ValidRange(0.001...3_600, unit: "s")
    public struct Configuration: Hashable, Sendable {
        /// The smoothing window.
        public var window: Duration
        /// How long an unheard beacon stays in the list (as unknown).
        public var expiry: Duration
        /// The path-loss exponent n, in ``pathLossExponents``.
        public var pathLossExponent: Double
        /// The path-loss exponents the log-distance model is used with: 1 (a waveguide, a
        /// corridor) to 6 (obstructed indoors); 2 is free space.
        public static let pathLossExponents = ValidRange(1...6, unit: "")
        /// Upper bound of immediate.
        public var immediateDistance: Distance
        /// Upper bound of near.
        public var nearDistance: Distance

        public init(window: Duration = .seconds(10), expiry: Duration = .seconds(30), pathLossExponent: Double = 2,
                    immediateDistance: Distance = .meters(0.5), nearDistance: Distance = .meters(3)) {
            self.window = window
            self.expiry = expiry
            self.pathLossExponent = pathLossExponent
            self.immediateDistance = immediateDistance
            self.nearDistance = nearDistance
        }

        /// - Throws: `GeoCoreError` `.invalidArgument` naming the setting that is out of range.
        public func validate() throws(GeoCoreError) {
            guard window > .zero, expiry >= window else {
                throw GeoCoreError(.invalidArgument, "ranging window must be positive and expiry at least the window, got \(window), \(expiry)")
            }
            guard Self.pathLossExponents.contains(pathLossExponent) else {
                throw GeoCoreError(.invalidArgument, "path-loss exponent must be \(Self.pathLossExponents), got \(pathLossExponent)")
            }
            guard immediateDistance.meters > 0, nearDistance > immediateDistance, nearDistance.meters.isFinite else {
                throw GeoCoreError(.invalidArgument, "need 0 < immediate < near distance, got \(immediateDistance.meters) m, \(nearDistance.meters) m")
            }
        }
    }

    private struct Track: Sendable {
        var address: String
        var powerAt1m: Int
        var samples: [(date: Date, rssi: Int)] = []
        var lastSeen: Date
    }

    public let configuration: Configuration
    private var tracks: [BeaconIdentity: Track] = [:]
    private var telemetry: [String: EddystoneTelemetry] = [:]
    private var urls: [String: String] = [:]

    /// - Throws: `GeoCoreError` when the configuration is invalid.
    public init(configuration: Configuration = Configuration()) throws(GeoCoreError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Records one sighting. RSSI values outside −127…0 dBm (127 is BlueZ's "unknown") are
    /// ignored; TLM and URL frames are kept per address for the beacon heard there.
    /// - Complexity: O(1) amortised; memory per beacon for the sightings in the window.
    public mutating func record(_ sighting: BeaconSighting) {
        switch sighting.advertisement {
        case .eddystoneTLM(let t): telemetry[sighting.address] = t; return
        case .eddystoneURL(let url, _): urls[sighting.address] = url; return
        default: break
        }
        guard let identity = sighting.advertisement.identity, let power = sighting.advertisement.powerAt1m,
              (-127...0).contains(sighting.rssi), sighting.rssi != 0 else { return }
        var track = tracks[identity] ?? Track(address: sighting.address, powerAt1m: power, lastSeen: sighting.timestamp)
        track.address = sighting.address
        track.powerAt1m = power
        track.samples.append((sighting.timestamp, sighting.rssi))
        track.lastSeen = max(track.lastSeen, sighting.timestamp)
        let oldest = track.lastSeen.addingTimeInterval(-configuration.window.seconds)
        track.samples.removeAll { $0.date < oldest }
        tracks[identity] = track
    }

    /// The beacons heard within ``Configuration/expiry`` before `now`, nearest first (unknown
    /// ones last), as Core Location's ranging reports them once a second. Beacons expired at
    /// `now` are forgotten.
    /// - Complexity: O(b log b + s) for b beacons and s sightings in their windows.
    public mutating func beacons(at now: Date) -> [RangedBeacon] {
        let expiry = now.addingTimeInterval(-configuration.expiry.seconds)
        tracks = tracks.filter { $0.value.lastSeen >= expiry }
        let windowStart = now.addingTimeInterval(-configuration.window.seconds)
        let ranged = tracks.map { identity, track -> RangedBeacon in
            let recent = track.samples.filter { $0.date >= windowStart && $0.date <= now }.map(\.rssi).sorted()
            var rssi: Double?, distance: Distance?, proximity = BeaconProximity.unknown
            if !recent.isEmpty {
                let cut = recent.count / 10
                let kept = recent[cut..<(recent.count - cut)]
                let mean = Double(kept.reduce(0, +)) / Double(kept.count)
                rssi = mean
                let d = pow(10.0, (Double(track.powerAt1m) - mean) / (10 * configuration.pathLossExponent))
                distance = .meters(d)
                proximity = d < configuration.immediateDistance.meters ? .immediate : d < configuration.nearDistance.meters ? .near : .far
            }
            return RangedBeacon(identity: identity, address: track.address, rssi: rssi, distance: distance, proximity: proximity,
                                lastSeen: track.lastSeen, telemetry: telemetry[track.address], url: urls[track.address])
        }
        return ranged.sorted { a, b in
            switch (a.distance, b.distance) {
            case let (x?, y?): return x < y || (x == y && a.identity.description < b.identity.description)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.identity.description < b.identity.description
            }
        }
    }
}

extension BeaconRanger {
    /// Ranges recorded sightings on their own times (a replay, as fast as it runs): a report
    /// every `interval` of recorded time from the first sighting's time plus `interval`, each
    /// with the sightings recorded up to it, and after the last sighting every `interval` until
    /// the first empty report (the beacons expire ``Configuration/expiry`` after they were last
    /// heard: the empty report comes within expiry + one interval of the last advertisement).
    ///
    /// A gap in the recording longer than ``Configuration/window`` after the last beacon has
    /// expired is reported twice, not interval by interval: the first empty report (the gap's
    /// start) and the last report before the next sighting (its end). Empty reports in between
    /// would say nothing more, and two sightings a century apart would otherwise make 3·10⁹.
    /// - Parameters:
    ///   - sightings: in recorded order; a sighting dated before the last report is ranged
    ///     with the next one.
    ///   - interval: recorded time between reports, more than zero.
    ///   - report: called with each report's time and beacons, in time order.
    /// - Complexity: O(reports · ranging), reports at most the intervals with a beacon in
    ///   range plus two per gap.
    public mutating func replay(_ sightings: [BeaconSighting], interval: Duration,
                                report: (Date, [RangedBeacon]) throws -> Void) rethrows {
        precondition(interval > .zero, "Broken contract: a replay's report interval is more than zero")
        guard let first = sightings.first?.timestamp else { return }
        let step = interval.seconds, window = configuration.window.seconds
        var tick = first.addingTimeInterval(step)
        for sighting in sightings {
            while tick <= sighting.timestamp {
                let ranged = beacons(at: tick)
                try report(tick, ranged)
                let left = sighting.timestamp.timeIntervalSince(tick)
                let skipped = (left / step).rounded(.down)
                if ranged.isEmpty, left > window, skipped >= 1 {
                    // Nothing in range and nothing recorded until the sighting: every report
                    // until then is this one. Straight to the last tick before the sighting.
                    tick = tick.addingTimeInterval(skipped * step)
                    try report(tick, beacons(at: tick))
                }
                tick = tick.addingTimeInterval(step)
            }
            record(sighting)
        }
        // After the last sighting, every interval until the report is empty (seed 003: an empty
        // array means no beacon in range): at most `expiry` / `interval` + 1 reports.
        var ranged = beacons(at: tick)
        try report(tick, ranged)
        while !ranged.isEmpty {
            tick = tick.addingTimeInterval(step)
            ranged = beacons(at: tick)
            try report(tick, ranged)
        }
    }
}
