import { describe, expect, it } from "vitest";
import { Acknowledgements } from "../../src/billing/settlement-acks.js";

describe("acknowledgements of leased settlements", () => {
  it("hands an account's markers over once, and takes back those of a failed call", () => {
    const acks = new Acknowledgements();
    acks.add("a", "m1");
    acks.add("a", "m2");
    acks.add("b", "m3");
    expect(acks.take("a")).toEqual(["m1", "m2"]);
    expect(acks.take("a")).toEqual([]);
    acks.giveBack("a", ["m1", "m2"]);
    acks.add("a", "m4");
    expect(acks.take("a")).toEqual(["m1", "m2", "m4"]);
    expect(acks.take("b")).toEqual(["m3"]);
  });
});
