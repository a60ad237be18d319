public import RoadNetwork

extension RoadGraphExtractor.Result {
    /// `geo extract`'s log lines (`osrm-extract`'s): what was read (and the nodes skipped for a
    /// position out of range), what the builder kept, trimmed and ignored, and the graph of
    /// `profile` with the size of its file, `fileBytes`.
    public func logLines(profile: Profile, fileBytes: Int) -> [String] {
        ["read \(summary.elementCounts)"
            + (summary.rejectedNodeCount > 0 ? " (skipped: \(summary.rejectedNodeCount) nodes with a position out of range)" : ""),
         report.description,
         "graph (\(profile.name)): \(graph.nodeCount) nodes, \(graph.edgeCount) edges, \(graph.segmentCount) segments, "
            + "\(graph.restrictionCount) turn rules, \(fileBytes) bytes"]
    }
}
