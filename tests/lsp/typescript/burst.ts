export function burst(): number {
  return 1;
}
