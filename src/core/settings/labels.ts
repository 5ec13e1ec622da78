/**
 * A setting's name as people read it: sentence case ("WelcomeMessage" -> "Welcome message"), the
 * few names that camel case garbles spelled out ("AIResponseLanguage" -> "Answer language").
 */
const SPELLED: Record<string, string> = {
  AIResponseLanguage: 'Answer language',
};

export function settingLabel(name: string): string {
  const spelled = SPELLED[name];
  if (spelled) return spelled;
  const spaced = name
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\burl\b/g, 'URL')
    .replace(/\bemail\b/g, 'e-mail');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
