import Foundation
import GeoCore
public import Monitoring

/// Region monitoring (the seed's `startMonitoringForRegion:`): the pipeline's `RegionDecisions`
/// decide circles, polygons and beacon regions with each fix's accuracy.
extension PositioningManager {
    /// Monitors `region` (replacing one with its identifier): `.region(.started)`, then its
    /// states and transitions as fixes decide them. Works whether or not positioning runs;
    /// regions are decided while it does.
    public func startMonitoring(for region: MonitoredRegion) {
        do {
            try pipeline.regions.add(region, at: rawPosition?.timestamp ?? now())
            emit(.region(.started(region)))
            updateBeaconScan()
        } catch {
            emit(.region(.failed(region, error)))
        }
    }

    /// Stops monitoring `region` (by identifier).
    public func stopMonitoring(for region: MonitoredRegion) {
        pipeline.regions.remove(region.identifier, at: rawPosition?.timestamp ?? now())
        updateBeaconScan()
    }

    /// Reports the region's current state through `.region(.determined)` (unknown until decided,
    /// or when the region is not monitored).
    public func requestState(for region: MonitoredRegion) {
        emit(.region(.determined(pipeline.regions.state(of: region.identifier), monitoredRegions[region.identifier] ?? region)))
    }

    /// Decides the beacon regions with the beacons heard at `date`.
    func monitorBeaconRegions(hearing beacons: [(uuid: UUID, major: UInt16, minor: UInt16)], at date: Date) {
        var events: [PositioningEvent] = []
        pipeline.regions.decide(hearing: beacons, at: date, into: &events)
        for event in events { emit(event) }
    }
}
