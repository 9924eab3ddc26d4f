import PurchaseKit
import PurchaseKitSimulator

// The example executable; the tour and its subcommands arrive with the demo work.
print("purchasekit-demo: PurchaseKit example (the tour is not written yet)")
