// Placeholder until this benchmark lands.
enum SnapBenchmark {
    static func run(_ args: [String]) throws { print("not built yet") }
}
