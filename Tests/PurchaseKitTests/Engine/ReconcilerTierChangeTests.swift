import XCTest
@testable import PurchaseKit

/// A subscription whose tier changed (an upgrade, a downgrade or a
/// crossgrade) within one purchase: on a store account shared by several app
/// users, the user who changed it holds it now, and a renewal follows the
/// orders of the tier it renews before the purchase's first order.
final class ReconcilerTierChangeTests: XCTestCase {
    private let t0 = AlicesSubscription.start
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3600)

    private var alicesMonthly: Order { AlicesSubscription.monthly() }

    /// Bob's order of the premium tier, paid at `began` and delivered.
    private func bobsPremium(began: TimeInterval) -> Order {
        var order = Order(id: "premium", productID: "plus.premium", userID: "bob", token: "tok-premium",
                          createdAt: t0.addingTimeInterval(began))
        order.status = .completed
        order.paymentBeganAt = t0.addingTimeInterval(began)
        return order
    }

    private func inAlicesPurchase(_ id: String, product: String, at offset: TimeInterval) -> StoreTransaction {
        AlicesSubscription.transaction(id, product: product, at: offset)
    }

    func testAChangeWithoutATokenThatNoOrderHereAskedForIsFlagged() {
        // Made in the store's own settings, or its order expired or lost with
        // a device: whoever asked for it, the tier's holder is only a guess.
        let change = inAlicesPurchase("c1", product: "plus.premium", at: 30 * 86_400)
        XCTAssertEqual(reconciler.match(change, orders: [alicesMonthly], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // With alice's token (a change in the store's settings keeps it): hers.
        var tokened = change
        tokened.orderToken = "tok-monthly"
        XCTAssertEqual(reconciler.match(tokened, orders: [alicesMonthly], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalFollowsTheUserOfTheTierItRenews() {
        var upgraded = bobsPremium(began: 86_400)
        upgraded.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400 + 20)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, upgraded], currentUserID: "alice"),
                       .newOrder(userID: "bob", source: .renewal), "bob holds the premium tier now")
        // A transaction of the monthly tier after bob's upgrade is a change
        // back whose order is not here: alice's monthly tier ended at the
        // upgrade, and who asked for the change is not known here.
        let monthlyAgain = inAlicesPurchase("r2", product: "plus.monthly", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(monthlyAgain, orders: [alicesMonthly, upgraded], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // Before the upgrade, a renewal of the monthly tier follows alice.
        let before = inAlicesPurchase("r0", product: "plus.monthly", at: 20)
        XCTAssertEqual(reconciler.match(before, orders: [alicesMonthly, upgraded], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testTransactionsOfOneDateAreOrderedByTheStoresIDs() {
        // bob's upgrade bears the same date as alice's purchase (an approval
        // dated when it was asked): the store's ids say it came after.
        var upgraded = bobsPremium(began: 0)
        upgraded.transaction = StoreTransaction(id: "10", originalID: "9", productID: "plus.premium", purchaseDate: t0)
        var monthly = alicesMonthly
        monthly.transaction = StoreTransaction(id: "9", productID: "plus.monthly", purchaseDate: t0)
        let renewal = StoreTransaction(id: "11", originalID: "9", productID: "plus.premium",
                                       purchaseDate: t0.addingTimeInterval(30 * 86_400), reason: .renewal)
        for orders in [[monthly, upgraded], [upgraded, monthly]] {
            XCTAssertEqual(reconciler.match(renewal, orders: orders, currentUserID: "alice"),
                           .newOrder(userID: "bob", source: .renewal))
        }
    }

    func testTheTierOfOneDateIsTheSameWhateverOrderTheOrdersComeIn() {
        // Ids of a custom store, numbers and not: one total order, so the
        // same orders always match the same way.
        func held(_ id: String, by user: String, product: String) -> Order {
            var order = Order(id: "o-\(id)", productID: product, userID: user, token: "tok-\(id)", createdAt: t0)
            order.status = .completed
            order.transaction = StoreTransaction(id: id, originalID: "2", productID: product, purchaseDate: t0)
            return order
        }
        let three = [held("2", by: "u1", product: "a"), held("10", by: "u2", product: "b"), held("1a", by: "u3", product: "c")]
        let renewal = StoreTransaction(id: "99", originalID: "2", productID: "c", purchaseDate: t0.addingTimeInterval(60),
                                       reason: .renewal)
        let answers = Set([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map { order in
            "\(reconciler.match(renewal, orders: order.map { three[$0] }, currentUserID: nil))"
        })
        XCTAssertEqual(answers, ["\(Reconciler.Match.newOrder(userID: "u3", source: .renewal))"],
                       "numbers first (2, 10), then other ids: 1a is the latest")
    }

    func testTwoUsersOnOneRunOfATierAreNeverGuessedBetween() {
        // bob's premium, then alice's premium (her change from a tier whose
        // transaction has not reached this device yet): the renewal could be
        // either's.
        var bobs = bobsPremium(began: 86_400)
        bobs.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400 + 20)
        var alices = Order(id: "alice-premium", productID: "plus.premium", userID: "alice", token: "tok-ap",
                           createdAt: t0.addingTimeInterval(20 * 86_400))
        alices.status = .completed
        alices.transaction = inAlicesPurchase("u2", product: "plus.premium", at: 20 * 86_400 + 20)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 50 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [bobs, alices], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    func testATierTakenUpAgainFollowsItsLatestHolderNotItsFirst() {
        // alice on monthly, bob's upgrade to premium, then carol's change back
        // to monthly (its token kept): a later monthly renewal is carol's.
        var upgraded = bobsPremium(began: 86_400)
        upgraded.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400 + 20)
        var carols = Order(id: "back", productID: "plus.monthly", userID: "carol", token: "tok-back",
                           createdAt: t0.addingTimeInterval(2 * 86_400))
        carols.status = .completed
        carols.transaction = inAlicesPurchase("d1", product: "plus.monthly", at: 31 * 86_400 + 20)
        let renewal = inAlicesPurchase("r3", product: "plus.monthly", at: 61 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, upgraded, carols], currentUserID: "alice"),
                       .newOrder(userID: "carol", source: .renewal))
    }

    func testARenewalOfATierKnownOnlyThroughAnUnansweredClaimIsFlagged() {
        // Bob's premium tier arrived from another device: his claim, not yet accepted.
        var claimed = Order(id: "claim", productID: "plus.premium", userID: "bob", token: nil, createdAt: t0)
        claimed.status = .purchased
        claimed.source = .otherDevice
        claimed.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, claimed], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "never alice's by way of the monthly tier")
    }

    /// Alice's premium tier, then a change away that has not reached this
    /// device, then bob's premium again: his payment, without its token,
    /// matched to his order by time, its receipt refused by the server.
    private func alicesPremiumThenBobsRefused(bobsSource: OrderSource = .purchase) -> [Order] {
        var alices = Order(id: "alice-premium", productID: "plus.premium", userID: "alice", token: "tok-ap", createdAt: t0)
        alices.status = .completed
        alices.transaction = StoreTransaction(id: "p1", productID: "plus.premium", purchaseDate: t0, orderToken: "tok-ap")
        var bobs = bobsPremium(began: 40 * 86_400)
        bobs.source = bobsSource
        bobs.status = .rejected
        bobs.transaction = StoreTransaction(id: "p3", originalID: "p1", productID: "plus.premium",
                                            purchaseDate: t0.addingTimeInterval(40 * 86_400 + 20), reason: .purchase)
        return [alices, bobs]
    }

    func testAPaymentWhoseReceiptTheServerRefusedStillCountsAmongTheTiersPayers() {
        // The store charged the account for bob's payment and renews the
        // premium tier on it: the renewal is bob's, not alice's, whatever the
        // server made of his receipt. Which of them it is is not known here.
        let renewal = StoreTransaction(id: "r1", originalID: "p1", productID: "plus.premium",
                                       purchaseDate: t0.addingTimeInterval(70 * 86_400), reason: .renewal)
        XCTAssertEqual(reconciler.match(renewal, orders: alicesPremiumThenBobsRefused(), currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // A restore of bob's that the server refused proves nothing of who
        // paid: alice's tier renews for alice.
        XCTAssertEqual(reconciler.match(renewal, orders: alicesPremiumThenBobsRefused(bobsSource: .restore),
                                        currentUserID: "alice"),
                       .newOrder(userID: "alice", source: .renewal))
        // Nor does a refused claim of whoever was logged in when it arrived,
        // a refused renewal (its user was followed, not proven) or a refused
        // assignment by the app (the server may have refused it because the
        // transaction was credited to someone else): neither proves bob paid.
        for source in [OrderSource.otherDevice, .renewal, .unknown] {
            XCTAssertEqual(reconciler.match(renewal, orders: alicesPremiumThenBobsRefused(bobsSource: source),
                                            currentUserID: "alice"),
                           .newOrder(userID: "alice", source: .renewal), "\(source)")
        }
        // A refused payment of alice's own leaves the tier hers.
        var own = alicesPremiumThenBobsRefused()
        own[1].userID = "alice"
        XCTAssertEqual(reconciler.match(renewal, orders: own, currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalWithoutATokenIsNotFollowedWhileAnotherUsersOrderOfItsTierWaits() {
        // alice holds the monthly tier; bob asked for it too (Ask to Buy,
        // his order waiting, its token lost), after a change to premium that
        // has not reached this device: the monthly transaction at the
        // renewal date may be bob's change.
        var bobs = Order(id: "bob-monthly", productID: "plus.monthly", userID: "bob", token: "tok-bob", createdAt: t0)
        bobs.status = .deferred
        let renewal = inAlicesPurchase("r1", product: "plus.monthly", at: 30 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, bobs], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: ["bob-monthly"], userID: nil))
        // With the subscription's token it is alice's renewal, whoever waits.
        var tokened = renewal
        tokened.orderToken = "tok-monthly"
        XCTAssertEqual(reconciler.match(tokened, orders: [alicesMonthly, bobs], currentUserID: "alice"),
                       .newOrder(userID: "alice", source: .renewal))
        // alice's own waiting order names nobody else: hers.
        var alicesWaiting = bobs
        alicesWaiting.userID = "alice"
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, alicesWaiting], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }
}
