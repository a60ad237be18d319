public import GeoCore
public import Monitoring
public import Compass
public import BeaconScanning

/// The classic delegate style (Core Location's `CLLocationManagerDelegate`), fed from the same
/// event stream as `PositioningManager.events()`. Every method has a default that does nothing.
///
/// Calls arrive in event order, one at a time. Fixes that arrive while the delegate is still busy
/// are delivered together in the next `didUpdateLocations` batch, oldest first.
public protocol PositioningDelegate: AnyObject, Sendable {
    /// New fixes, oldest first; the last is the most recent.
    func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async
    /// A failure: `.locationUnknown` (the manager keeps trying), `.denied` (it waits for
    /// access, then `didChangeAuthorization(.authorized)` and updates resume), or
    /// `.headingFailure` (headings cannot be used now; once per run of them).
    func positioningManager(_ manager: PositioningManager, didFailWithError error: PositioningError) async
    /// The position is lost.
    func positioningManagerDidLosePosition(_ manager: PositioningManager) async
    /// Updates paused because the device is stationary.
    func positioningManagerDidPauseLocationUpdates(_ manager: PositioningManager) async
    /// Updates resumed because the device moves again.
    func positioningManagerDidResumeLocationUpdates(_ manager: PositioningManager) async
    /// The authorization of the source changed: `.denied` when the device refused access,
    /// `.authorized` when a fix could be read again.
    func positioningManager(_ manager: PositioningManager, didChangeAuthorization status: AuthorizationStatus) async
    /// A visit began (`departureDate` is `distantFuture`) or ended (`startMonitoringVisits()`).
    func positioningManager(_ manager: PositioningManager, didVisit visit: Visit) async
    /// A new heading while heading updates run (`startUpdatingHeading()`, `headingFilter`).
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async
    /// The heading sensor needs calibration: asked when a calibration alarm starts (the first
    /// heading ever seen, or the sensor turning to its alarm), not with every heading. Return
    /// true when the app shows its calibration guidance (LocationKit shows none itself; the
    /// answer is `isDisplayingHeadingCalibration`, until `dismissHeadingCalibrationDisplay()`).
    func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool
    /// Deferred delivery ended: nil when the held fixes (just delivered) reached the distance or
    /// time, `.deferredCanceled` when disallowed or stopped first.
    func positioningManager(_ manager: PositioningManager, didFinishDeferredUpdatesWithError error: PositioningError?) async

    // MARK: Regions (`startMonitoring(for:)`)
    //
    // Regions are decided on every fix the source delivers (also while updates pause), with
    // the fix's accuracy (Monitoring's `FenceEngine` and `FencePolicy`). There is no cap on
    // the number of regions (Core Location's is 20); the limits are memory (about 200 bytes a
    // circle, 48 bytes a polygon edge) and the time per fix, which grows with the regions
    // near the fix and those not settled outside. Beacon conditions are decided from beacon
    // sightings, not fixes.

    /// The region's state was decided (every change), or asked for with `requestState(for:)`.
    func positioningManager(_ manager: PositioningManager, didDetermineState state: RegionState, for region: MonitoredRegion) async
    /// The device entered the region (when `notifyOnEntry`); not called for the first
    /// decision, which only determines the state.
    func positioningManager(_ manager: PositioningManager, didEnterRegion region: MonitoredRegion) async
    /// The device left the region (when `notifyOnExit`).
    func positioningManager(_ manager: PositioningManager, didExitRegion region: MonitoredRegion) async
    /// The region cannot be monitored (nil: monitoring failed as a whole).
    func positioningManager(_ manager: PositioningManager, monitoringDidFailFor region: MonitoredRegion?, withError error: MonitoringError) async
    /// Monitoring of the region began.
    func positioningManager(_ manager: PositioningManager, didStartMonitoringFor region: MonitoredRegion) async

    // MARK: Beacons (`startRangingBeacons(satisfying:)`)

    /// The beacons satisfying the constraint, nearest first, once a second of sighting time.
    func positioningManager(_ manager: PositioningManager, didRange beacons: [RangedBeacon], satisfying constraint: BeaconIdentityCondition) async
    /// Ranging the constraint failed and stopped: the scanner could not start, was refused, or
    /// went away (BlueZ absent or gone, the adapter removed or powered off). Beacon regions
    /// get `monitoringDidFailFor` with the same error.
    func positioningManager(_ manager: PositioningManager, rangingBeaconsDidFailFor constraint: BeaconIdentityCondition, withError error: MonitoringError) async
}

extension PositioningDelegate {
    public func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async {}
    public func positioningManager(_ manager: PositioningManager, didFailWithError error: PositioningError) async {}
    public func positioningManagerDidLosePosition(_ manager: PositioningManager) async {}
    public func positioningManagerDidPauseLocationUpdates(_ manager: PositioningManager) async {}
    public func positioningManagerDidResumeLocationUpdates(_ manager: PositioningManager) async {}
    public func positioningManager(_ manager: PositioningManager, didChangeAuthorization status: AuthorizationStatus) async {}
    public func positioningManager(_ manager: PositioningManager, didVisit visit: Visit) async {}
    public func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {}
    public func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool { false }
    public func positioningManager(_ manager: PositioningManager, didFinishDeferredUpdatesWithError error: PositioningError?) async {}
    public func positioningManager(_ manager: PositioningManager, didDetermineState state: RegionState, for region: MonitoredRegion) async {}
    public func positioningManager(_ manager: PositioningManager, didEnterRegion region: MonitoredRegion) async {}
    public func positioningManager(_ manager: PositioningManager, didExitRegion region: MonitoredRegion) async {}
    public func positioningManager(_ manager: PositioningManager, monitoringDidFailFor region: MonitoredRegion?, withError error: MonitoringError) async {}
    public func positioningManager(_ manager: PositioningManager, didStartMonitoringFor region: MonitoredRegion) async {}
    public func positioningManager(_ manager: PositioningManager, didRange beacons: [RangedBeacon], satisfying constraint: BeaconIdentityCondition) async {}
    public func positioningManager(_ manager: PositioningManager, rangingBeaconsDidFailFor constraint: BeaconIdentityCondition, withError error: MonitoringError) async {}
}
