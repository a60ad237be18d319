import Platform

/// The process's open-file limit (`RLIMIT_NOFILE`, getrlimit(2)): each tracker's connection, each
/// `/live` subscriber and the store's files take a descriptor, and a soft limit of 1,024 (a
/// common default) where the hard limit allows far more would refuse connections the machine
/// could serve.
public enum OpenFileLimit {
    /// The soft and hard limits, descriptors; `Int.max` for none (`RLIM_INFINITY`).
    public static var current: (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (Int.max, Int.max) }
        func count(_ value: rlim_t) -> Int { value == rlim_t.max ? Int.max : Int(clamping: value) }
        return (count(limit.rlim_cur), count(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one, as nginx's `worker_rlimit_nofile` and systemd's
    /// `LimitNOFILE` do for a server; returns the soft limit before and after (unchanged when
    /// the system refuses, as macOS does for an unlimited hard limit).
    @discardableResult
    public static func raiseSoftToHard() -> (before: Int, after: Int) {
        let before = current.soft
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return (before, current.soft)
    }
}
