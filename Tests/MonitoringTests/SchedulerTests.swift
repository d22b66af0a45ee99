#if canImport(Glibc)
import Glibc
#endif
import Testing
import Synchronization
import Core
import TestSupport
@testable import Monitoring

/// Records what the scheduler dispatches and checks the invariants on the
/// way: never more than `limit` in flight, never an id twice at once.
final class SchedulerRecorder: Sendable {
    struct State {
        var runs: [ScheduledRun] = []
        var running: Set<Int64> = []
        var maxInFlight = 0
        var selfOverlaps = 0
    }
    let state = Mutex(State())

    func dispatched(_ run: ScheduledRun) {
        state.withLock { s in
            s.runs.append(run)
            if !s.running.insert(run.id).inserted { s.selfOverlaps += 1 }
            s.maxInFlight = max(s.maxInFlight, s.running.count)
        }
    }

    /// Marks the run of `id` over (call before `scheduler.finished(id:)`).
    func finishing(_ id: Int64) { state.withLock { _ = $0.running.remove(id) } }

    var runs: [ScheduledRun] { state.withLock { $0.runs } }
    var running: Set<Int64> { state.withLock { $0.running } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var selfOverlaps: Int { state.withLock { $0.selfOverlaps } }
    func runs(of id: Int64) -> [ScheduledRun] { runs.filter { $0.id == id } }
}

private let start: Int64 = 1_800_000_000_000

private func makeScheduler(maxConcurrent: Int = 100) -> (Scheduler, ManualSchedulerClock, SchedulerRecorder) {
    let clock = ManualSchedulerClock(startMillis: start)
    let recorder = SchedulerRecorder()
    let scheduler = Scheduler(maxConcurrent: maxConcurrent, clock: clock) { run, _ in recorder.dispatched(run) }
    return (scheduler, clock, recorder)
}

private func finish(_ id: Int64, _ scheduler: Scheduler, _ recorder: SchedulerRecorder) {
    recorder.finishing(id)
    scheduler.finished(id: id)
}

/// Manual clock, `runDue()` called directly: fully deterministic.
@Suite struct SchedulerManualClockTests {
    @Test func firstRunIsOnThePhaseGrid() throws {
        let (s, clock, rec) = makeScheduler()
        s.upsert(id: 7, intervalMs: 60_000)
        let due = try #require(s.runDue())
        #expect(due == SchedulePlan.slot(atOrAfter: start, id: 7, intervalMs: 60_000))
        #expect(rec.runs.isEmpty)
        clock.set(due - 1)
        #expect(s.runDue() == due)
        #expect(rec.runs.isEmpty)
        clock.set(due)
        s.runDue()
        #expect(rec.runs == [ScheduledRun(id: 7, due: due, startedAt: due)])
    }

    @Test func noDriftOver100IntervalsWithVariableCheckTimes() throws {
        let (s, clock, rec) = makeScheduler()
        let interval: Int64 = 60_000
        s.upsert(id: 1, intervalMs: interval)
        var rng = SchedulerTestRandom(seed: 1)
        let first = try #require(s.runDue())
        var deadline = first
        for _ in 0..<100 {
            // wake up a little late (0–300 ms), check takes 0–50 s
            clock.set(deadline + rng.below(300))
            s.runDue()
            clock.advance(by: rng.below(50_000))
            finish(1, s, rec)
            deadline = try #require(s.runDue())
        }
        let runs = rec.runs
        #expect(runs.count == 100)
        for (k, run) in runs.enumerated() {
            #expect(run.due == first + Int64(k) * interval)
            #expect(run.latenessMillis >= 0 && run.latenessMillis < 300)
        }
        #expect(deadline == first + 100 * interval)
        #expect(s.metrics().skippedOverlaps == 0 && s.metrics().skippedLate == 0)
        let lateness = s.latenessPercentiles()
        #expect(lateness.count == 100 && lateness.p50 <= lateness.p99 && lateness.p99 < 300)
    }

    @Test func overlappingSlotIsSkippedAndCounted() throws {
        let (s, clock, rec) = makeScheduler()
        let interval: Int64 = 10_000
        s.upsert(id: 1, intervalMs: interval)
        let d0 = try #require(s.runDue())
        clock.set(d0)
        #expect(s.runDue() == d0 + interval)  // next slot queued at once
        clock.set(d0 + interval)
        #expect(s.runDue() == d0 + 2 * interval)  // still running: skipped
        clock.set(d0 + 2 * interval + 500)
        #expect(s.runDue() == d0 + 3 * interval)  // skipped again
        #expect(rec.runs.count == 1 && s.metrics().skippedOverlaps == 2)
        clock.set(d0 + 25_000)
        finish(1, s, rec)
        #expect(s.runDue() == d0 + 3 * interval)
        clock.set(d0 + 3 * interval)
        s.runDue()
        #expect(rec.runs.map(\.due) == [d0, d0 + 3 * interval])
        #expect(rec.selfOverlaps == 0)
    }

    @Test func boundedConcurrencyIsNeverExceeded() {
        // 50 monitors every second, 3 slots, checks of 50–900 ms: an event simulation.
        let (s, clock, rec) = makeScheduler(maxConcurrent: 3)
        for id: Int64 in 1...50 { s.upsert(id: id, intervalMs: 1000) }
        var rng = SchedulerTestRandom(seed: 3)
        var finishAt: [Int64: Int64] = [:]
        var seen = 0
        var now = start
        while now < start + 20_000 {
            let deadline = s.runDue()
            let runs = rec.runs
            for run in runs[seen...] { finishAt[run.id] = now + 50 + rng.below(850) }
            seen = runs.count
            #expect(rec.running.count <= 3)
            #expect(s.metrics().inFlight == rec.running.count)
            let nextFinish = finishAt.values.min()
            guard let next = [deadline, nextFinish].compactMap({ $0 }).min() else { break }
            now = max(now, next)
            clock.set(now)
            for (id, at) in finishAt where at <= now {
                finishAt[id] = nil
                finish(id, s, rec)
            }
        }
        #expect(rec.maxInFlight == 3)
        #expect(rec.selfOverlaps == 0)
        // Capacity (3 slots, ~475 ms checks) is far below demand (50/s): behind, so slots are skipped.
        let m = s.metrics()
        #expect(m.skippedLate > 0)
        #expect(m.runsStarted == rec.runs.count)
        #expect(Set(rec.runs.map(\.id)).count == 50)  // nobody starves
        #expect(m.latenessCount == m.runsStarted)
    }

    @Test func restartWithStoredDueTimesHasNoBurst() {
        let (s, clock, rec) = makeScheduler()
        let interval: Int64 = 60_000
        var rng = SchedulerTestRandom(seed: 9)
        var stored: [Int64: Int64] = [:]
        for id: Int64 in 1...200 {
            // half were due during a long downtime, half are still in the future
            stored[id] = id % 2 == 0 ? start - 1 - rng.below(10 * interval) : start + 1 + rng.below(interval - 1)
            s.upsert(id: id, intervalMs: interval, storedNextDue: stored[id])
        }
        for id: Int64 in 1...200 {
            let due = s.nextDue(id: id)!
            #expect(due >= start && due < start + interval)
            if id % 2 == 1 { #expect(due == stored[id]) }
        }
        s.runDue()
        #expect(rec.runs.count <= 1)  // only one whose grid slot is exactly now, if any
        // Over the first interval every monitor runs exactly once.
        var now = start
        while let d = s.runDue(), d < start + interval {
            now = d
            clock.set(now)
            s.runDue()
            for id in rec.running { finish(id, s, rec) }
        }
        let counts = Dictionary(grouping: rec.runs, by: \.id).mapValues(\.count)
        #expect(counts.count == 200 && counts.values.allSatisfy { $0 == 1 })
        #expect(s.metrics().skippedLate == 0)
    }

    @Test func removeStopsRuns() throws {
        let (s, clock, rec) = makeScheduler()
        s.upsert(id: 1, intervalMs: 1000)
        s.upsert(id: 2, intervalMs: 1000)
        for _ in 0..<3 {
            clock.set(try #require(s.runDue()))
            s.runDue()
            for id in rec.running { finish(id, s, rec) }
        }
        s.remove(id: 2)
        let before = rec.runs(of: 2).count
        for _ in 0..<10 {
            clock.set(try #require(s.runDue()))
            s.runDue()
            for id in rec.running { finish(id, s, rec) }
        }
        #expect(rec.runs(of: 2).count == before)
        #expect(rec.runs(of: 1).count >= 10)
        #expect(s.metrics().scheduled == 1)
        // Removing while a run is in flight: its `finished` still frees the slot.
        clock.set(try #require(s.runDue()))
        s.runDue()
        #expect(s.metrics().inFlight == 1)
        s.remove(id: 1)
        finish(1, s, rec)
        #expect(s.metrics().inFlight == 0 && s.metrics().scheduled == 0)
        #expect(s.runDue() == nil)
        s.finished(id: 12345)  // unknown: ignored
        #expect(s.metrics().inFlight == 0)
    }

    @Test func runNowGoesFirstAndKeepsTheRegularSchedule() throws {
        let (s, clock, rec) = makeScheduler(maxConcurrent: 1)
        let hour: Int64 = 3_600_000
        s.upsert(id: 1, intervalMs: hour)
        let regular = try #require(s.nextDue(id: 1))
        #expect(s.runNow(id: 1))
        #expect(!s.runNow(id: 99))
        clock.advance(by: 250)
        s.runDue()
        #expect(rec.runs == [ScheduledRun(id: 1, due: start, startedAt: start + 250, manual: true)])
        #expect(s.nextDue(id: 1) == regular)
        // runNow while it runs: again right after it finishes
        #expect(s.runNow(id: 1))
        s.runDue()
        #expect(rec.runs.count == 1)
        finish(1, s, rec)
        s.runDue()
        #expect(rec.runs.count == 2 && rec.runs[1].manual)
        finish(1, s, rec)
        #expect(s.runDue() == regular)

        // With the single slot busy and others due, a manual run jumps the queue.
        s.upsert(id: 2, intervalMs: 1000)
        s.upsert(id: 3, intervalMs: 1000)
        clock.advance(by: 5000)
        s.runDue()  // one of 2/3 starts, the other waits
        let busy = try #require(rec.running.first)
        #expect(s.runNow(id: 1))
        finish(busy, s, rec)
        s.runDue()
        #expect(rec.runs.last?.id == 1 && rec.runs.last?.manual == true)
    }

    @Test func upsertChangesInterval() throws {
        let (s, clock, _) = makeScheduler()
        s.upsert(id: 4, intervalMs: 3_600_000)
        s.upsert(id: 4, intervalMs: 3_600_000, storedNextDue: start + 5)  // same interval: no change
        #expect(s.nextDue(id: 4) == SchedulePlan.slot(atOrAfter: start, id: 4, intervalMs: 3_600_000))
        clock.advance(by: 10)
        s.upsert(id: 4, intervalMs: 10_000)
        let due = try #require(s.nextDue(id: 4))
        #expect(due == SchedulePlan.slot(atOrAfter: start + 10, id: 4, intervalMs: 10_000))
        #expect(s.runDue() == due)
    }
}

extension SchedulerManualClockTests {
    @Test func wallClockSteppedBackOrForward() throws {
        let (s, clock, rec) = makeScheduler()
        let interval: Int64 = 60_000
        s.upsert(id: 1, intervalMs: interval)
        clock.set(try #require(s.runDue()))
        s.runDue()
        finish(1, s, rec)
        // Back one hour: the next run is within one interval of the new time, on the grid.
        let back = clock.nowMillis() - 3_600_000 - 7_000
        clock.set(back)
        let due = try #require(s.runDue())
        #expect(due >= back && due < back + interval)
        #expect(due == SchedulePlan.slot(atOrAfter: back, id: 1, intervalMs: interval))
        // Forward one hour: one run, the slots in between skipped.
        clock.set(due + 3_600_000)
        s.runDue()
        #expect(rec.runs.count == 2)
        #expect(s.metrics().skippedLate == 60)
        #expect(s.nextDue(id: 1) == due + 3_600_000 + interval)
    }
}

/// A started scheduler thread on the manual clock: checks the wake-ups
/// (upsert, time passing, finished, stop) without any real waiting.
@Suite struct SchedulerThreadTests {
    @Test func threadWakesOnUpsertTimeAndFinished() throws {
        let (s, clock, rec) = makeScheduler(maxConcurrent: 1)
        s.start()
        clock.waitUntilIdle()
        s.upsert(id: 1, intervalMs: 1000)
        s.upsert(id: 2, intervalMs: 1000)
        clock.waitUntilIdle()
        #expect(rec.runs.isEmpty)
        let due = min(s.nextDue(id: 1)!, s.nextDue(id: 2)!)
        clock.set(max(s.nextDue(id: 1)!, s.nextDue(id: 2)!))
        clock.waitUntilIdle()
        #expect(rec.runs.count == 1)  // one slot
        #expect(rec.runs[0].due == due)
        finish(rec.runs[0].id, s, rec)
        clock.waitUntilIdle()
        #expect(rec.runs.count == 2)  // the finished() woke it for the other
        #expect(rec.maxInFlight == 1)
        s.stop()
        s.stop()
        #expect(s.metrics().runsStarted == 2)
    }
}

/// The real clock: 100 monitors every 200 ms for about a second, checks
/// handed to worker threads. Only correctness is asserted, not timing.
@Suite struct SchedulerRealClockTests {
    final class WorkQueue: Sendable {
        let items = Mutex<[ScheduledRun?]>([])
        let available = Semaphore()
        func push(_ run: ScheduledRun?) {
            items.withLock { $0.append(run) }
            available.post()
        }
        func pop() -> ScheduledRun? {
            available.wait()
            return items.withLock { $0.removeFirst() }
        }
    }

    @Test func hundredMonitorsAt200ms() {
        let queue = WorkQueue()
        let recorder = SchedulerRecorder()
        let scheduler = Scheduler(maxConcurrent: 8, clock: SystemSchedulerClock()) { run, _ in
            recorder.dispatched(run)
            queue.push(run)  // hand off; the check runs elsewhere
        }
        let workers = (0..<4).map { n in
            startThread(name: "check-\(n)") {
                var seed = SchedulerTestRandom(seed: UInt64(n))
                while let run = queue.pop() {
                    usleep(UInt32(seed.below(3000)))  // a 0–3 ms "check"
                    recorder.finishing(run.id)
                    scheduler.finished(id: run.id)
                }
            }
        }
        for id: Int64 in 1...100 { scheduler.upsert(id: id, intervalMs: 200) }
        scheduler.start()
        usleep(1_100_000)
        scheduler.stop()
        for _ in workers { queue.push(nil) }
        for w in workers { w.join() }

        let runs = recorder.runs
        #expect(Set(runs.map(\.id)) == Set(1...100))  // all ran
        #expect(recorder.selfOverlaps == 0)           // none concurrently with itself
        #expect(recorder.maxInFlight <= 8)
        #expect(recorder.running.isEmpty)
        let m = scheduler.metrics()
        #expect(m.runsStarted == runs.count && m.inFlight == 0)
        for id: Int64 in 1...100 {
            let dues = runs.filter { $0.id == id }.map(\.due)
            #expect(dues == dues.sorted() && Set(dues).count == dues.count)
        }
    }
}
