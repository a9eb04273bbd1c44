// Fixtures shared by the newCollection specs.

export interface LocalPod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  ip?: string;
}
export const localPod = (name: string, ip?: string, labels?: Record<string, string>): LocalPod => ({
  metadata: { name, namespace: 'ns', labels },
  ip,
});

/** Singletons whose value is a plain record live under the key `static` (as krt's test objects do). */
export const staticKey = (): string => 'static';
