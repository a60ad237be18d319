import Foundation
import GeoCore
public import Monitoring
public import BeaconScanning

/// What beacon ranging tells the positioning delegate.
public enum BeaconRangingEvent: Sendable {
    /// The beacons satisfying the constraint, nearest first (Core Location's `didRange`).
    case ranged([RangedBeacon], BeaconIdentityCondition)
    /// Ranging the constraint failed and stopped (Core Location's `didFailRangingFor`).
    case failed(BeaconIdentityCondition, MonitoringError)
}

/// The manager's beacon state: the constraints ranged, the scanner and its running scan, and
/// the ranger its sightings feed.
struct BeaconRangingState {
    /// The scanner; nil means the platform's default (``BlueZScanner`` on the first adapter).
    var scanner: (any BeaconScanner)?
    var constraints: [BeaconIdentityCondition] = []
    var scan: Task<Void, Never>?
    /// Tells a finished scan's late reports from the current one's.
    var generation = 0
    var ranger = try! BeaconRanger() // the default configuration is valid
    /// The end of the current one-second ranging interval, by sighting time.
    var intervalEnd: Date?
    /// The UUID beacons heard in the current interval, for beacon regions.
    var heard: Set<BeaconIdentity> = []
    /// Reports the intervals that end while no advertisement arrives (`tickBeacons`).
    var ticker: Task<Void, Never>?
    /// The latest sighting's time and the manager's clock reading when it arrived: between
    /// sightings, report times run on from it by the manager's clock.
    var lastSighting: (date: Date, elapsed: Duration)?

    /// Stops the scan and its ticker.
    mutating func stopScan() {
        scan?.cancel()
        scan = nil
        ticker?.cancel()
        ticker = nil
        intervalEnd = nil
        lastSighting = nil
    }
}

extension PositioningManager {
    /// Sets the scanner that beacon ranging and beacon regions listen to; nil is the default, a
    /// ``BlueZScanner`` on the first adapter. A running scan switches to it.
    public func setBeaconScanner(_ scanner: (any BeaconScanner)?) {
        beaconRanging.scanner = scanner
        beaconRanging.stopScan()
        updateBeaconScan()
    }

    /// The constraints being ranged.
    public var rangedBeaconConstraints: [BeaconIdentityCondition] { beaconRanging.constraints }

    /// Starts ranging the beacons that satisfy `constraint` (Core Location's
    /// `startRangingBeacons(satisfying:)`): once a second, `.beacons(.ranged)` and the delegate's
    /// `didRange` with them, nearest first (``BeaconRanger``), an empty array when none is in
    /// range (seed 003). The seconds are counted on the sightings' times and, between
    /// sightings, on the manager's clock: a beacon that falls silent is reported as unknown,
    /// then dropped after the ranger's 30 s expiry, and its beacon region exited after the
    /// fence policy's `beaconExitDelay` (30 s), whether or not anything else is heard. When the scanner
    /// fails, `.beacons(.failed)` and `rangingBeaconsDidFailFor` for each constraint, which stops.
    public func startRangingBeacons(satisfying constraint: BeaconIdentityCondition) {
        if !beaconRanging.constraints.contains(constraint) { beaconRanging.constraints.append(constraint) }
        updateBeaconScan()
    }

    /// Stops ranging `constraint`; the scan stops when nothing else needs it.
    public func stopRangingBeacons(satisfying constraint: BeaconIdentityCondition) {
        beaconRanging.constraints.removeAll { $0 == constraint }
        updateBeaconScan()
    }

    /// Whether ranging or a monitored beacon region needs the scanner.
    private var needsBeaconScan: Bool {
        !beaconRanging.constraints.isEmpty || pipeline.regions.monitorsBeacons
    }

    /// Starts the scan when something needs it and none runs; stops it when nothing does.
    func updateBeaconScan() {
        guard needsBeaconScan else {
            beaconRanging.stopScan()
            return
        }
        guard beaconRanging.scan == nil else { return }
        beaconRanging.generation += 1
        let token = beaconRanging.generation
        let scanner = beaconRanging.scanner ?? BlueZScanner()
        beaconRanging.scan = Task {
            do {
                for try await sighting in scanner.sightings() {
                    guard self.recordBeacon(sighting, generation: token) else { return }
                }
            } catch is CancellationError {
            } catch {
                let failure = error as? MonitoringError ?? MonitoringError(.bluetoothLost, "\(error)", at: scanner.name)
                self.beaconScanFailed(failure, generation: token)
            }
        }
        let sleep = self.sleep
        beaconRanging.ticker = Task {
            while !Task.isCancelled {
                do { try await sleep(.seconds(1)) } catch { return }
                guard self.tickBeacons(generation: token) else { return }
            }
        }
    }

    /// Reports the intervals that ended since the latest sighting, by the manager's clock. False
    /// once the scan is not current.
    private func tickBeacons(generation token: Int) -> Bool {
        guard token == beaconRanging.generation else { return false }
        guard let last = beaconRanging.lastSighting, var end = beaconRanging.intervalEnd else { return true }
        let now = last.date.addingTimeInterval((elapsed() - last.elapsed).seconds)
        guard now >= end else { return true }
        // One report per interval; a clock jump of more than an hour reports the last hour.
        let due = (now.timeIntervalSince(end)).rounded(.down) + 1
        if due > 3600 { end = end.addingTimeInterval(due - 3600) }
        while now >= end {
            reportBeacons(at: end)
            end = end.addingTimeInterval(1)
        }
        beaconRanging.intervalEnd = end
        return true
    }

    /// Ranges one sighting; reports each finished second. False once the scan is not current.
    private func recordBeacon(_ sighting: BeaconSighting, generation token: Int) -> Bool {
        guard token == beaconRanging.generation else { return false }
        let end = beaconRanging.intervalEnd ?? sighting.timestamp.addingTimeInterval(1)
        if sighting.timestamp >= end {
            reportBeacons(at: end)
            beaconRanging.intervalEnd = end.addingTimeInterval(max(1, (sighting.timestamp.timeIntervalSince(end) + 1).rounded(.down)))
        } else {
            beaconRanging.intervalEnd = end
        }
        beaconRanging.ranger.record(sighting)
        beaconRanging.lastSighting = (sighting.timestamp, elapsed())
        if let identity = sighting.advertisement.identity { beaconRanging.heard.insert(identity) }
        return true
    }

    /// The end of a ranging interval: the ranged beacons of each constraint, and the UUID
    /// beacons heard in it to the beacon regions.
    private func reportBeacons(at date: Date) {
        let beacons = beaconRanging.ranger.beacons(at: date)
        for constraint in beaconRanging.constraints {
            let matching = beacons.filter { beacon in
                guard case .uuid(let uuid, let major, let minor) = beacon.identity else { return false }
                return constraint.matches(uuid: uuid, major: major, minor: minor)
            }
            emit(.beacons(.ranged(matching, constraint)))
        }
        let heard = beaconRanging.heard.compactMap { identity -> (uuid: UUID, major: UInt16, minor: UInt16)? in
            guard case .uuid(let uuid, let major, let minor) = identity else { return nil }
            return (uuid, major, minor)
        }
        beaconRanging.heard = []
        monitorBeaconRegions(hearing: heard, at: date)
    }

    /// The scan failed: every ranged constraint fails and stops; every beacon region fails.
    private func beaconScanFailed(_ error: MonitoringError, generation token: Int) {
        guard token == beaconRanging.generation else { return }
        beaconRanging.stopScan()
        let constraints = beaconRanging.constraints
        beaconRanging.constraints = []
        for constraint in constraints { emit(.beacons(.failed(constraint, error))) }
        for region in monitoredRegions.values.sorted(by: { $0.identifier < $1.identifier }) {
            if case .beacon = region.condition { emit(.region(.failed(region, error))) }
        }
    }
}
