/// A region in the classic delegate style (Core Location's `CLRegion`): a condition under an
/// identifier, with whether its entries and exits are reported.
public struct MonitoredRegion: Sendable, Hashable {
    public var identifier: String
    public var condition: MonitorCondition
    /// Whether `didEnterRegion` is called (`didDetermineState` always is).
    public var notifyOnEntry = true
    /// Whether `didExitRegion` is called.
    public var notifyOnExit = true

    public init(identifier: String, condition: MonitorCondition, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.condition = condition
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}

/// Where the device is relative to a region (Core Location's `CLRegionState`).
public enum RegionState: Sendable, Hashable {
    case unknown
    case inside
    case outside

    /// The region state of a condition state (`unmonitored` reads as unknown).
    public init(_ state: ConditionState) {
        switch state {
        case .satisfied: self = .inside
        case .unsatisfied: self = .outside
        case .unknown, .unmonitored: self = .unknown
        }
    }
}

/// What region monitoring tells the positioning delegate.
public enum RegionMonitoringEvent: Sendable {
    /// Monitoring of the region began.
    case started(MonitoredRegion)
    /// The region's state was decided or requested (`requestState(for:)`).
    case determined(RegionState, MonitoredRegion)
    /// The device entered the region (only when `notifyOnEntry`).
    case entered(MonitoredRegion)
    /// The device left the region (only when `notifyOnExit`).
    case exited(MonitoredRegion)
    /// The region cannot be monitored (nil: monitoring as a whole failed).
    case failed(MonitoredRegion?, MonitoringError)
}
