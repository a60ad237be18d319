import Foundation
import GeoCore
public import Monitoring

/// Region monitoring (the seed's `startMonitoringForRegion:`): circles, polygons and beacon
/// regions decided by Monitoring's `FenceEngine` with each fix's accuracy.
extension PositioningManager {
    /// Monitors `region` (replacing one with its identifier): `.region(.started)`, then its
    /// states and transitions as fixes decide them. Works whether or not positioning runs;
    /// regions are decided while it does.
    public func startMonitoring(for region: MonitoredRegion) {
        do {
            try fences.add(region.condition, identifier: region.identifier, at: rawPosition?.timestamp ?? now())
            monitoredRegions[region.identifier] = region
            regionStates[region.identifier] = nil
            emit(.region(.started(region)))
            updateBeaconScan()
        } catch {
            emit(.region(.failed(region, error)))
        }
    }

    /// Stops monitoring `region` (by identifier).
    public func stopMonitoring(for region: MonitoredRegion) {
        fences.remove(region.identifier, at: rawPosition?.timestamp ?? now())
        monitoredRegions[region.identifier] = nil
        regionStates[region.identifier] = nil
        updateBeaconScan()
    }

    /// Reports the region's current state through `.region(.determined)` (unknown until decided,
    /// or when the region is not monitored).
    public func requestState(for region: MonitoredRegion) {
        let state = fences.record(for: region.identifier).map { RegionState($0.state) } ?? .unknown
        emit(.region(.determined(state, monitoredRegions[region.identifier] ?? region)))
    }

    /// Decides the monitored regions with a fix as the source delivered it.
    func monitorRegions(with location: Location) {
        guard !monitoredRegions.isEmpty else { return }
        publishRegionEvents(fences.process(location))
    }

    /// Decides the beacon regions with the beacons heard at `date`.
    func monitorBeaconRegions(hearing beacons: [(uuid: UUID, major: UInt16, minor: UInt16)], at date: Date) {
        publishRegionEvents(fences.observe(beacons: beacons, at: date))
    }

    /// Reports the monitor's decisions as region states, entries and exits.
    private func publishRegionEvents(_ events: [MonitorEvent]) {
        for event in events {
            guard let region = monitoredRegions[event.identifier], event.refinement != .dwell else { continue }
            // An inferred crossing is an enter and an exit from outside; otherwise the state
            // before is the opposite one, or unknown for the first decision.
            let previous: ConditionState = event.refinement == .inferredCrossing
                ? (event.state == .satisfied ? .unsatisfied : .satisfied) : (regionStates[event.identifier] ?? .unknown)
            if event.refinement != .inferredCrossing { regionStates[event.identifier] = event.state }
            emit(.region(.determined(RegionState(event.state), region)))
            if event.state == .satisfied, previous == .unsatisfied, region.notifyOnEntry { emit(.region(.entered(region))) }
            if event.state == .unsatisfied, previous == .satisfied, region.notifyOnExit { emit(.region(.exited(region))) }
        }
    }
}
