import RoadSnapCore

/// Real files for the format tests, located from this source file (not bundled as resources).
enum FixturePaths {
    static let testsDirectory: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/")
    }()

    static func fixture(_ relative: String) -> String { testsDirectory + "/Fixtures/" + relative }

    /// A file under the repository's `Samples/`.
    static func sample(_ name: String) -> String { testsDirectory + "/../../Samples/" + name }
}

/// The error a throwing call produced, for asserting on its case and message.
func trackError(_ body: () throws(RoadSnapError) -> Track) -> RoadSnapError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

extension RoadSnapError {
    /// Line of an `invalidTrack` error (nil for other cases or when unknown).
    var trackLine: Int? {
        if case let .invalidTrack(_, line, _) = self { return line }
        return nil
    }
}
