// Placeholder until this benchmark lands.
enum MatchBenchmark {
    static func run(_ args: [String]) throws { print("not built yet") }
}
