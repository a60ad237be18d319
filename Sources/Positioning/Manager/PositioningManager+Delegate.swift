import BeaconScanning
import Compass
import Monitoring
import Foundation

/// Delivery to the delegate: events queued in order and handed over one call at a time, a run
/// of updates as one `didUpdateLocations` batch (Core Location's `locations` array).
extension PositioningManager {
    /// Delivers queued events to the delegate one call at a time, merging consecutive
    /// updates into one `didUpdateLocations` batch.
    func drainDelegateQueue() async {
        defer { delegateBusy = false }
        while !delegateQueue.isEmpty, let delegate {
            let first: PositioningEvent
            switch delegateQueue.removeFirst() {
            case .event(let event):
                first = event
            case .headingCalibration(let endings):
                let shows = await delegate.positioningManagerShouldDisplayHeadingCalibration(self)
                // A calibrated heading or a dismissal since the question was asked ended the
                // alarm it was about: the answer is then stale.
                if calibrationDisplayEndings == endings { isDisplayingHeadingCalibration = shows }
                continue
            }
            switch first {
            case .updated(let location):
                var batch = [location]
                while case .event(.updated(let next))? = delegateQueue.first {
                    batch.append(next)
                    delegateQueue.removeFirst()
                }
                await delegate.positioningManager(self, didUpdateLocations: batch)
            case .lost: await delegate.positioningManagerDidLosePosition(self)
            case .failed(let error): await delegate.positioningManager(self, didFailWithError: error)
            case .paused: await delegate.positioningManagerDidPauseLocationUpdates(self)
            case .resumed: await delegate.positioningManagerDidResumeLocationUpdates(self)
            case .authorizationChanged(let status): await delegate.positioningManager(self, didChangeAuthorization: status)
            case .visit(let event): await delegate.positioningManager(self, didVisit: event.visit)
            case .heading(let heading): await delegate.positioningManager(self, didUpdateHeading: heading)
            case .deferredUpdatesFinished(let error):
                await delegate.positioningManager(self, didFinishDeferredUpdatesWithError: error)
            case .region(.started(let region)): await delegate.positioningManager(self, didStartMonitoringFor: region)
            case .region(.determined(let state, let region)): await delegate.positioningManager(self, didDetermineState: state, for: region)
            case .region(.entered(let region)): await delegate.positioningManager(self, didEnterRegion: region)
            case .region(.exited(let region)): await delegate.positioningManager(self, didExitRegion: region)
            case .region(.failed(let region, let error)): await delegate.positioningManager(self, monitoringDidFailFor: region, withError: error)
            case .beacons(.ranged(let beacons, let constraint)): await delegate.positioningManager(self, didRange: beacons, satisfying: constraint)
            case .beacons(.failed(let constraint, let error)):
                await delegate.positioningManager(self, rangingBeaconsDidFailFor: constraint, withError: error)
            case .rejected, .mapMatched, .stopped: break
            }
        }
    }
}

/// One call owed to the delegate: an event, or the calibration question a heading raised.
enum DelegateCall {
    case event(PositioningEvent)
    /// `positioningManagerShouldDisplayHeadingCalibration`, asked when the display had ended
    /// `endings` times (`calibrationDisplayEndings`).
    case headingCalibration(endings: Int)
}
