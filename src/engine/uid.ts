// Process-unique identities for collections and the other members of the graph.

let nextUid = 1;

/** @internal A fresh process-unique uid (collections and other graph members share the sequence). */
export function allocateUid(): number {
  return nextUid++;
}
