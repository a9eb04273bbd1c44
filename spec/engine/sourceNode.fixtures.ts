// The objects the SourceNode specs write: key `ns/name`, and a number to tell writes apart.
export interface Named {
  metadata: { name: string; namespace: string };
  v: number;
}
export const named = (name: string, v: number): Named => ({ metadata: { name, namespace: 'ns' }, v });
